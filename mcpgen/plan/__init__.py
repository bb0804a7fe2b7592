"""Stage 3, the plan: what to generate and every Python name in it, decided once for both the
client and the server (`build.py` -> the typed objects of `types.py`; names from `naming.py`)."""
