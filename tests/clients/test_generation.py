"""The three libraries' generated code (clients/, made by clients/generate.py): the committed
document is the one the service serves, each library's generated files are its fresh generation,
and every operation has one name in the three, spelt each language's way
(`client.payout_batches.list_items`, `client.payoutBatches.listItems`,
`$client->payoutBatches->listItems`). Python alone: no Node.js or PHP is needed."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import congopay
from django.test import Client

from clients import gen
from clients.gen import node, operations, php

CLIENTS = Path(gen.CLIENTS)
CLIENT_SRC = CLIENTS / "python" / "src"


def committed_document() -> dict:
    return json.loads((CLIENTS / gen.DOCUMENT).read_text(encoding="utf-8"))


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def test_the_committed_document_and_every_librarys_code_are_a_fresh_generation(tmp_path):
    """What `clients/generate.py --check` checks in CI: the committed document is the one the
    service serves, and the generated files of each library are what it makes (a file no longer
    generated counts too). Node's dist/ is compiled from them: tests/clients/test_node_client.py
    checks that one."""
    document = committed_document()
    assert document == Client().get("/v1/openapi.json").json()
    owned = gen.generate_into(document, tmp_path)
    generated = {"python/src/congopay/resources.py", "node/src/generated.ts", "php/src/Model"}
    assert generated <= set(owned)
    assert gen.differences(tmp_path, owned) == [], "run: .venv/bin/python clients/generate.py"


def test_every_operation_has_one_name_in_the_three_libraries():
    client = congopay.Congopay(api_key="sk_test_x", base_url="http://127.0.0.1:9")
    typescript = (CLIENTS / node.TARGET).read_text(encoding="utf-8")
    for operation in operations.operations(committed_document()):
        resource, method = operation.resource, operation.method
        where = f"{operation.http_method} {operation.path}"

        found = client
        for word in resource:
            found = getattr(found, word)
        assert callable(getattr(found, method, None)), f"Python: {where}"

        dotted = ".".join(camel(word) for word in resource)
        block = typescript.split(f"/** `client.{dotted}` */\nexport class ", 1)[1]
        block = block.split("\n}\n", 1)[0]
        assert re.search(rf"^  {camel(method)}\(", block, re.M), f"TypeScript: {where}"

        name = "".join(camel(word)[:1].upper() + camel(word)[1:] for word in resource)
        source = (CLIENTS / php.ROOT / "Resource" / f"{name}Resource.php").read_text()
        assert f"/** $client->{'->'.join(camel(word) for word in resource)} */" in source
        assert f"    public function {camel(method)}(" in source, f"PHP: {where}"


def test_a_new_operation_of_the_service_is_picked_up_by_itself(tmp_path):
    """Settlements, as the service will describe them: named like the others, and methods of the
    three libraries with nothing else changed."""
    document = committed_document()
    charges = document["paths"]["/v1/charges"]
    one = document["paths"]["/v1/charges/{charge_id}"]["get"]
    document["paths"]["/v1/settlements"] = {
        "get": {**charges["get"], "operationId": "settlements_list"},
        "post": {**charges["post"], "operationId": "settlements_create"},
    }
    document["paths"]["/v1/settlements/{settlement_id}"] = {
        "get": {
            **one,
            "operationId": "settlements_retrieve",
            "parameters": [
                {
                    "in": "path",
                    "name": "settlement_id",
                    "required": True,
                    "schema": {"type": "string"},
                }
            ],
        }  # fmt: skip
    }
    document["paths"]["/v1/settlement_accounts/{account_id}"] = {
        "delete": {
            **one,
            "operationId": "settlement_accounts_delete",
            "parameters": [
                {"in": "path", "name": "account_id", "required": True, "schema": {"type": "string"}}
            ],
        }  # fmt: skip
    }
    names = {op.id: (op.resource, op.method) for op in operations.operations(document)}
    gen.generate_into(document, tmp_path)
    assert names["settlements_create"] == (("settlements",), "create")
    assert names["settlements_list"] == (("settlements",), "list")
    assert names["settlements_retrieve"] == (("settlements",), "retrieve")
    assert names["settlement_accounts_delete"] == (("settlement_accounts",), "delete")
    assert names["checkout_sessions_expire"] == (("checkout", "sessions"), "expire")
    assert names["charge_refunds_list"] == names["refunds_list"] == (("refunds",), "list")
    assert names["payout_batches_items"] == (("payout_batches",), "list_items")
    assert names["event_deliveries_list"] == (("events",), "list_deliveries")

    package = tmp_path / "python" / "src" / "congopay"
    for name in ("__init__.py", "client.py", "errors.py", "pagination.py", "transport.py",
                 "webhooks.py", "py.typed"):  # fmt: skip
        (package / name).write_bytes((CLIENT_SRC / "congopay" / name).read_bytes())
    probe = subprocess.run(
        [sys.executable, "-c", "import congopay, inspect; c = congopay.Congopay('sk_test_x', "
         "base_url='http://127.0.0.1:9'); print(inspect.signature(c.settlements.create), "
         "inspect.signature(c.settlement_accounts.delete), c.settlements.list.__name__)"],
        env={**os.environ, "PYTHONPATH": str(package.parent)}, capture_output=True, text=True,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split(") ")[0].startswith("(*, idempotency_key: 'str | None' = None")
    assert "(account_id: 'str') -> 'types.Charge'" in probe.stdout

    typescript = (tmp_path / node.TARGET).read_text(encoding="utf-8")
    assert "readonly settlementAccounts: SettlementAccountsResource;" in typescript
    assert re.search(r"^  delete\(accountId: string, options\?: RequestOptions\)", typescript, re.M)
    settlements = typescript.split("export class SettlementsResource {", 1)[1]
    assert re.search(r"^  create\(params: ChargeCreateRequest", settlements, re.M)
    resource = (tmp_path / php.ROOT / "Resource" / "SettlementAccountsResource.php").read_text()
    assert "public function delete(string $accountId" in resource
    assert "$settlementAccounts" in (tmp_path / php.ROOT / "Resources.php").read_text()
