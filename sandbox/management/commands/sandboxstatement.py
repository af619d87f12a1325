"""python manage.py sandboxstatement --network NETWORK --date YYYY-MM-DD [--output FILE]: the test
operator's statement of that UTC day (contract §21), in the generic format, to the file given or
standard output."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from payments.models import StatementNetwork
from sandbox.statement import write_statement


class Command(BaseCommand):
    help = "Write the sandbox operator's statement of one UTC day (generic CSV)."

    def add_arguments(self, parser):
        parser.add_argument("--network", required=True, choices=StatementNetwork.values)
        parser.add_argument("--date", required=True, help="The UTC day, YYYY-MM-DD.")
        parser.add_argument("--output", help="The file to write (default: standard output).")

    def handle(self, *args, **options):
        try:
            day = date.fromisoformat(options["date"])
        except ValueError:
            raise CommandError(f"{options['date']!r} is not a date (YYYY-MM-DD).") from None
        if options["output"]:
            try:
                with open(options["output"], "w", encoding="utf-8", newline="") as out:
                    count = write_statement(out, network=options["network"], day=day)
            except OSError as exc:
                raise CommandError(f"Cannot write {options['output']}: {exc.strerror}") from None
            self.stderr.write(f"{count} line(s) written to {options['output']}.")
        else:
            write_statement(self.stdout, network=options["network"], day=day)
