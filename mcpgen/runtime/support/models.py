"""What a generated `models.py` imports: the exact JSON Schema check its models run first."""

from ..core.validation import check_exact_model

__all__ = ["check_exact_model"]
