"""The tray renderer: labeled dice scenes for training data, rendered rolls and test fixtures.

A development tool (the `render` extra: moderngl, pillow; Mesa EGL). Nothing the reader runs at a
table imports it. See README.md here for why it is built this way and how to run it.
"""
