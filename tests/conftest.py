"""Shared by every test folder: being here puts tests/ on sys.path, so `import serving` works."""
