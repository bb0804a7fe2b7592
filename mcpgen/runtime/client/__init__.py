"""The client role: ClientSession and connect_* (`session.py`), the base classes of generated
clients (`typed.py`), prompts/resources (`features.py`), drift checks, listen streams."""
