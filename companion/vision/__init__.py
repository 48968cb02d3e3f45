"""Camera pipeline: render synthetic tables, train and run dice detectors, read faces.

Run time needs only numpy, OpenCV and onnxruntime; training (``companion.vision.training``)
needs the ``[train]`` extra (torch, ultralytics).
"""
