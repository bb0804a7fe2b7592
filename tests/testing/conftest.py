"""Puts tests/testing/ on sys.path so its test modules import kit_support."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
