"""Camera pipeline: render synthetic tables, train and run dice detectors, read faces.

Run time needs only numpy, OpenCV and onnxruntime (plus scipy for roster assignment);
training (``companion.vision.train.training``, ``face_classifier``, ``bundle``) needs the
``[train]`` extra (torch, ultralytics).

Modules:

* ``synth``: OpenCV renderer (``render_scene``), procedural face glyphs with a user glyph
  folder override, YOLO dataset writer with a manifest (``write_dataset``).
* ``reader``: ONNX model bundles (``load_model("dragon-dice" | "d6" | folder)``), ``SeenDie`` (a die in a frame).
* ``detections``: ``Detections``, one dataclass of numpy arrays, boolean-mask filtering.
* ``settle`` / ``watch`` / ``sources``: frame differencing, the camera loop, frame sources.
* ``assign``: roster-constrained unit -> face assignment (Hungarian method).
* ``learning``: capture, corrections, export for fine-tuning.
* ``metrics`` / ``evaluation``: mAP50, mAP50-95, recall, face accuracy, confusion matrix PNG.
* ``die_kinds``: die kinds (d4..d12) and materials, shared by reading and rendering.
* ``roll_reading`` (run time): a camera frame of a roll -> one ``companion.readings.DieReading`` per die::

      from companion.vision.roll_reading import read_roll, roll_readings, annotate
      read = read_roll(frame, ["Dwarves/Mammoth Rider", "Goblins/Thug"])
      read["units"]   # [{"unit": ..., "face": "3 Trample", "confidence": ..., "alternatives": [...]}, ...]
      roll_readings(read, ["u1", "u2"])   # [DieReading("u1", "3 Trample", 0.93, Source.CAMERA, box=...), ...]
      panel = annotate(frame, read["dice"], read["units"])   # BGR image with boxes and labels

* ``roll_frames`` (demo and benches; needs the renderer): ``render_roll`` draws chosen dice showing
  chosen faces, ``roll_video`` a clip of dice tumbling in and settling.
"""

#: The numeral bundle that reads standard dice (d4..d20) when no other is named (``serve`` / ``watch``
#: ``--standard-model``, ``numerals.read_standard_roll``).  ``polyhedral-oblique``, trained on oblique
#: renders: on the strict test styles its d20s are read right 45.1 % and wrong with confidence 1.9 %,
#: against 0 % and 77.5 % for the older straight-down ``polyhedral`` (models/polyhedral-oblique/
#: MODEL_CARD.md); a table camera or a phone on a stand looks at the dice obliquely (issue 20, part 5).
DEFAULT_STANDARD_MODEL = "polyhedral-oblique"
