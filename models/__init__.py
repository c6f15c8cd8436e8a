"""localeval's model registry: each sub-folder is one judge with its model card.

Installed as the package ``localeval_models`` so the default judge travels inside the wheel.
"""

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
DEFAULT_JUDGE = "localeval-judge-minilm-l6"
