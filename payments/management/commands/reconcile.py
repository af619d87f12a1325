"""python manage.py reconcile --network NETWORK --mode live|test FILE [--json]: load an operator's
statement and compare it with our books (contract §21). Prints the summary (JSON with --json)
and exits with status 1 while a difference this statement found is open."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from payments.models import Mode, StatementNetwork
from payments.operator_statement import StatementInvalid
from payments.services import reconciliation


class Command(BaseCommand):
    help = "Reconcile an operator's statement (CSV) with the charges, refunds and payouts."

    def add_arguments(self, parser):
        parser.add_argument("--network", required=True, choices=StatementNetwork.values)
        parser.add_argument("--mode", required=True, choices=Mode.values)
        parser.add_argument("file", help="The statement: a CSV file.")
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    def handle(self, *args, **options):
        path = Path(options["file"])
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}") from None
        try:
            loaded = reconciliation.statement_load(
                network=options["network"],
                livemode=options["mode"] == Mode.LIVE,
                content=content,
                file_name=path.name,
                loaded_by="manage.py reconcile",
            )
        except StatementInvalid as exc:
            raise CommandError(
                f"{path} is not a statement; nothing was recorded.\n" + "\n".join(exc.problems)
            ) from None
        statement = loaded.statement
        summary = reconciliation.statement_summary(statement)
        if options["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            self._words(summary, loaded.new)
        left_open = reconciliation.open_results(statement).count()
        if left_open:
            if not options["json"]:
                self.stderr.write(f"{left_open} difference(s) left open for staff.")
            raise SystemExit(1)

    def _words(self, summary: dict, new: bool) -> None:
        if not new:
            self.stdout.write(f"This file was loaded before as {summary['statement']}.")
        period = summary["period"]
        self.stdout.write(
            f"{summary['statement']} {summary['network']} {summary['mode']} "
            f"{period['from']} to {period['to']}: {summary['lines']} line(s)"
        )
        for outcome, count in summary["results"].items():
            if count:
                self.stdout.write(f"  {outcome}: {count}")
        for fee in summary["operator_fees"]:
            self.stdout.write(f"  operator fees {fee['currency']}: {fee['amount']}")
        for row in summary["float"]:
            reported = "-" if row["reported"] is None else row["reported"]
            self.stdout.write(
                f"  float {row['currency']}: expected {row['expected']}, reported {reported}"
            )
