"""One module per `dice-reader` sub-command: each has HELP, add_arguments(parser) and run(args)."""
