"""The machinery of ``train.py`` (masked self-play with sb3-contrib's MaskablePPO) and the
export of a run as the package's pretrained policy (:mod:`agents.learning.training.export`)."""
