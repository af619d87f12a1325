"""Statements written out once, for the writes every API request of a kind makes: no request
pays for the ORM compiling them. Values are converted as the ORM converts them (each field's
pre_save and get_db_prep_save), so a row written here is the row Model.save would write."""

from django.db import connection

# How a model's rows are inserted, worked out once per model, database and condition.
_insert_plans: dict[tuple, tuple[str, list]] = {}


def insert(instance, *, unless: tuple | None = None) -> bool:
    """Insert `instance` as `instance.save(force_insert=True)` would (every concrete field; no
    signals, so only for models that have no receivers), in one statement. With
    `unless=(model, where, params)` (SQL on that model's own columns), nothing is inserted while
    a row of that model matches, decided by the same statement. Whether the row was inserted."""
    model = type(instance)
    condition, params = None, []
    if unless is not None:
        other, where, params = unless
        condition = (other._meta.db_table, where)
    key = (model, connection.vendor, condition)
    plan = _insert_plans.get(key)
    if plan is None:
        plan = _insert_plans[key] = _insert_plan(model, condition)
    statement, fields = plan
    values = [
        field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(statement, values + list(params))
        inserted = cursor.rowcount == 1
    if inserted:
        instance._state.adding = False
        instance._state.db = connection.alias
    return inserted


def _insert_plan(model, condition: tuple[str, str] | None) -> tuple[str, list]:
    meta = model._meta
    fields = [field for field in meta.local_concrete_fields if field is not meta.auto_field]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    statement = f"INSERT INTO {quote(meta.db_table)} ({columns}) "
    if condition is None:
        return statement + f"VALUES ({placeholders})", fields
    table, where = condition
    # INSERT … SELECT: PostgreSQL types the selected values by the columns they go into.
    return (
        statement + f"SELECT {placeholders} WHERE NOT EXISTS "
        f"(SELECT 1 FROM {quote(table)} WHERE {where})",
        fields,
    )
