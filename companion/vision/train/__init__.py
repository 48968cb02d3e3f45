"""Training the shipped dice models: the recipes and their data preparation (the ``train`` extra).

Everything here may need torch and ultralytics (``pip install -e '.[train]'``); the run time (reading
dice: ``companion.vision.reader``, ``roll_reading``, ``table_reading``...) never imports this package.

* ``training``: the die finder (YOLO) trained and exported to ONNX;
* ``dd_training``: the recipe of the shipped ``dragon-dice`` bundle (``python -m companion.vision.train.dd_training``);
* ``d6_training`` and ``d6_prep``: the recipe of the shipped ``d6`` detector and its photo split;
* ``numerals_training``: the polyhedral (d4..d20) numeral reader;
* ``embed_training``: the face embedding network a table profile reads with;
* ``standard_training``: the oblique reader of standard dice.

The renderer (``companion.vision.synth``) and the YOLO dataset format (``companion.vision.yolo_dataset``)
stay beside the run time: the demo and enrolment from art render frames, and the learning loop exports
corrections as a dataset, without the ``train`` extra.
"""
