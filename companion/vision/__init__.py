"""Camera pipeline: render synthetic tables, train and run dice detectors, read faces.

Run time needs only numpy, OpenCV and onnxruntime (plus scipy for roster assignment);
training (``companion.vision.training``, ``face_classifier``, ``bundle``) needs the
``[train]`` extra (torch, ultralytics).

Modules:

* ``synth``: OpenCV renderer (``render_scene``), procedural face glyphs with a user glyph
  folder override, YOLO dataset writer with a manifest (``write_dataset``).
* ``reader``: ONNX model bundles (``load_model("dragon-dice" | "d6" | folder)``), ``DieReading``.
* ``detections``: ``Detections``, one dataclass of numpy arrays, boolean-mask filtering.
* ``settle`` / ``watch`` / ``sources``: frame differencing, the camera loop, frame sources.
* ``assign``: roster-constrained unit -> face assignment (Hungarian method).
* ``learning``: capture, corrections, export for fine-tuning.
* ``metrics`` / ``evaluation``: mAP50, mAP50-95, recall, face accuracy, confusion matrix PNG.
* ``roll_frames``: for the demo and the tablet's roll panel::

      from companion.vision.roll_frames import render_roll, read_roll, annotate
      scene = render_roll([("Dwarves/Mammoth Rider", 2), ("Goblins/Thug", 0)], seed=7)
      result = read_roll(scene.image, ["Dwarves/Mammoth Rider", "Goblins/Thug"])
      result["units"]   # [{"unit": ..., "face": "3 Trample", "confidence": ..., "alternatives": [...]}, ...]
      panel = annotate(scene.image, result["dice"], result["units"])   # BGR image with boxes and labels
"""
