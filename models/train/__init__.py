"""Training recipe for the ONNX models in models/ (torch is a training extra, never a runtime dep)."""
