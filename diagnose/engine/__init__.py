"""The engine: the course's MiniGPT in numpy, its training, and the dashboard's instruments.

numpy, the standard library and `scenarios` only. The modules, each readable in one sitting:

- `corpus`: the built-in Spanish→English conjugation corpus, its vocabulary and entropy floor.
- `layers`: each layer as a pair of pure functions, forward and backward.
- `model`: the parameters (one flat buffer, GPT-2 names), the GPT's forward and backward.
- `optim`: the learning-rate schedule, global-norm clipping, AdamW.
- `instruments`: activations, spectral norms, dead heads and neurons, validation loss.
- `train`: `Trainer` and `train`, which stream one metrics record per step.
- `runtime`: the two process-wide settings a fast step needs (malloc, BLAS threads).
"""

from diagnose.engine import corpus
from diagnose.engine.model import count_params, init_params, loss_and_grads
from diagnose.engine.optim import lr_at
from diagnose.engine.train import Trainer, run_header_fields, train

__all__ = ["Trainer", "corpus", "count_params", "init_params", "loss_and_grads", "lr_at",
           "run_header_fields", "train"]
