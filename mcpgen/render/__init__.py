"""Stage 5, rendering: jinja2 templates (top-level `templates/`) render the plan's typed objects
into files (`client.py`, `server.py`); `environment.py` holds the only filters through which
untrusted text reaches generated source."""
