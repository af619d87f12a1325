"""python manage.py checkledger: prove the books. For every merchant, mode and currency, the
ledger's rows must be exactly those its charges, refunds and payouts call for, the balance
their sum, and each balance checkpoint the count and sum of the rows before it. Prints each disagreement and exits with status 1 if there is any."""

from django.core.management.base import BaseCommand, CommandError

from payments.models import LedgerEntry
from payments.services.ledger import ledger_check


class Command(BaseCommand):
    help = "Check that every balance equals its ledger and the charges, refunds and payouts."

    def handle(self, *args, **options):
        problems = ledger_check()
        for problem in problems:
            mode = "live" if problem.livemode else "test"
            self.stderr.write(f"{problem.merchant_id} {mode} {problem.currency}: {problem.problem}")
        if problems:
            raise CommandError(
                f"{len(problems)} disagreement(s) between the ledger and its sources"
            )
        self.stdout.write(
            f"The ledger agrees with its sources ({LedgerEntry.objects.count()} rows)."
        )
