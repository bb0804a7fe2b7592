"""Shipped jinja2 templates (package data)."""
