"""Finding dice in a frame and reading their top faces (issue 6).

The entry point is `reader.vision.recognizer.Recognizer`:

    rec = Recognizer.load()                       # ONNX models from models/
    readings = rec.read_frame(bgr_image)           # list[DieReading], every die in a tray frame
    reading = rec.read_single(bgr_image)           # the image shows one die, which may fill it
"""
