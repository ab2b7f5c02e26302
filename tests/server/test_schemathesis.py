"""Property-based fuzzing of the REST API from its own OpenAPI document: no input answers 5xx.

Bounded (a few examples per operation) so the suite stays quick; every operation is covered.
Driven with plain Hypothesis over schemathesis strategies, one run per operation.
"""

from __future__ import annotations

import os
import uuid

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from server_kit import auth

pytestmark = pytest.mark.e2e

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))  # FUZZ_EXAMPLES=80 for a deeper run (~90 s)


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx, value) -> bytes:
    # the import body is declared as a string of JSON lines; send whatever was generated as text
    return value.encode() if isinstance(value, str) else str(value).encode()


def test_no_input_gets_a_server_error(host):
    url, _ = host
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    # an admin key acting for one fuzz user reaches every route, admin ones included
    headers = auth("admin", **{"X-Amber-User": f"fuzz-{uuid.uuid4().hex[:6]}"})
    operations = [r.ok() for r in schema.get_all_operations()]
    assert len(operations) >= 30
    for op in operations:

        @given(case=op.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case) -> None:
            case.call_and_validate(base_url=url, headers=headers, checks=[not_a_server_error])

        run()
