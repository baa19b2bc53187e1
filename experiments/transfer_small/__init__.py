"""The small dense transfer study (``python -m experiments.transfer_small``;
``cli.py`` says what it runs): UperNet and Mask R-CNN on the digit scenes
from each initialisation of the same ViT-mini/4 encoder, on a CPU.

- ``runs.py``: what is compared (pretrainings, initialisations, tasks),
  the study's settings and the config of one run;
- ``steps.py``: its steps, pretraining, readout and runs, each a recorded
  step (``experiments.records``), and the table;
- ``readout.py``: the frozen encoders' token identity;
- ``pictures.py``: each initialisation's predictions on validation scenes;
- ``cli.py``: the command line.
"""
from .cli import main

__all__ = ['main']
