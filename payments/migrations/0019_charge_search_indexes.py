"""The merchant dashboard finds a merchant's charges by phone number, operator reference or words
of the description. Without an index each of these read every charge of the merchant and mode
(a parallel scan of a million rows for one phone number). Now:

- charge_search_phone_idx: (merchant, mode, phone, created_at, id) of the charges that have a
  phone, so a number's charges come newest first from the index alone;
- charge_search_reference_idx: (merchant, mode, operator reference) of the charges that have one;
- charge_search_description_idx (PostgreSQL only): a trigram index (pg_trgm, a trusted extension
  that the database's owner may create) of UPPER(description), the expression of Django's
  `icontains`, so that words of three characters or more are found without reading every row.
  It is an expression index the models do not describe (it exists only in the database); elsewhere
  (SQLite) a description search reads the rows.

On PostgreSQL the indexes are built CONCURRENTLY (as in migrations 0013, 0016, 0017), so this
migration runs outside a transaction and writes to the charges go on meanwhile.
"""

from django.db import migrations, models

from core.indexes import build_index, concurrently, drop_index

TABLE = "payments_charge"
PHONE = "charge_search_phone_idx"
REFERENCE = "charge_search_reference_idx"
DESCRIPTION = "charge_search_description_idx"


def forwards(apps, schema_editor):
    build_index(
        schema_editor, TABLE, PHONE, ["merchant_id", "livemode", "phone", "created_at", "id"],
        where="\"phone\" <> ''",
    )  # fmt: skip
    build_index(
        schema_editor, TABLE, REFERENCE, ["merchant_id", "livemode", "provider_reference"],
        where="\"provider_reference\" <> ''",
    )  # fmt: skip
    if concurrently(schema_editor):
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        schema_editor.execute(
            f'CREATE INDEX CONCURRENTLY IF NOT EXISTS "{DESCRIPTION}" ON "{TABLE}" '
            'USING gin ((UPPER("description")) gin_trgm_ops)'
        )


def backwards(apps, schema_editor):
    drop_index(schema_editor, DESCRIPTION)
    drop_index(schema_editor, REFERENCE)
    drop_index(schema_editor, PHONE)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("payments", "0018_apikey_issue_permission"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
                    model_name="charge",
                    index=models.Index(
                        condition=models.Q(("phone", ""), _negated=True),
                        fields=["merchant", "livemode", "phone", "created_at", "id"],
                        name="charge_search_phone_idx",
                    ),
                ),
                migrations.AddIndex(
                    model_name="charge",
                    index=models.Index(
                        condition=models.Q(("provider_reference", ""), _negated=True),
                        fields=["merchant", "livemode", "provider_reference"],
                        name="charge_search_reference_idx",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
