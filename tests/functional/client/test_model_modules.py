"""A generated package's models, one module per tool behind `models.py`: a name loads its tool's
module and no other, every name is still reachable as before (attribute, from-import, star
import, dir, pickle), with the installed runtime and with a vendored copy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WEATHER = Path(__file__).resolve().parents[3] / "examples" / "weather" / "schemas"

SCRIPT = """
import json, pickle, sys
import weather_client
import weather_client.models as models

PARTS = "weather_client._models."
def loaded():
    return sorted(n[len(PARTS):] for n in sys.modules if n.startswith(PARTS))

report = {"after import": loaded()}
args = models.ListCitiesArgs(country="JP")
report["after one tool"] = loaded()
report["same class"] = models.ListCitiesArgs is sys.modules[PARTS + "list_cities"].ListCitiesArgs
report["pickled"] = pickle.loads(pickle.dumps(args)) == args
try:
    models.NoSuchModel
except AttributeError as exc:
    report["missing"] = str(exc)
report["dir"] = [n for n in ("GetForecastArgs", "ListCitiesArgs", "WeatherAlertArgs") if n in dir(models)]
report["all"] = sorted(models.__all__)
namespace = {}
exec("from weather_client.models import *", namespace)
report["star"] = sorted(n for n in namespace if not n.startswith("__"))
report["after star"] = loaded()
print(json.dumps(report))
"""


@pytest.mark.slow
@pytest.mark.parametrize("runtime", ["import", "vendor"])
def test_a_model_loads_its_own_tools_module_and_every_name_stays_reachable(tmp_path: Path, runtime: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", "client", str(WEATHER), "-o", "weather_client", "--runtime", runtime],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["after import"] == []
    assert report["after one tool"] == ["_shared", "list_cities"]
    assert report["same class"] is True and report["pickled"] is True
    assert report["missing"] == "module 'weather_client.models' has no attribute 'NoSuchModel'"
    assert report["dir"] == ["GetForecastArgs", "ListCitiesArgs", "WeatherAlertArgs"]
    public = [
        "ExactSchemaCheck",  # the models' exact-schema mixin, public so pyright strict takes its import
        "GetForecastArgs",
        "GetForecastResult",
        "GetForecastResultDay",
        "ListCitiesArgs",
        "ListCitiesResult",
        "WeatherAlertArgs",
    ]
    assert report["all"] == public
    assert report["star"] == public
    assert report["after star"] == ["_shared", "get_forecast", "list_cities", "weather_alert"]
