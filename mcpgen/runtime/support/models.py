"""What a generated `models.py` and its `_models/` modules import: the exact JSON Schema check
their models run first, where it reads their schemas (the package's catalog), and the loader
that declares each tool's models on first use."""

from ..core.exact_schemas import ExactSchemas
from ..core.model_modules import lazy_models
from ..core.validation import check_exact_model

__all__ = ["ExactSchemas", "check_exact_model", "lazy_models"]
