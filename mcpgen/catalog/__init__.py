"""Stage 2, the catalog: the intermediate representation every source produces (`model.py`),
built and checked tool by tool (`build.py`, `checks.py`, `metaschema.py`), saved as a snapshot
(`snapshot.py`) and compared (`diff.py`)."""
