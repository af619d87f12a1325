"""Statements written out once, for the reads and writes every API request of a kind makes (GET
of a charge, a page of a list, a new charge, whether a network is closed): no request pays for
the ORM compiling them, and on PostgreSQL each is prepared once per connection. Values are
converted as the ORM converts them, so a row read or written here is the row the ORM would read
or write."""

import inspect
from collections.abc import Callable
from datetime import datetime

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import (
    DEFERRED,
    BooleanField,
    CharField,
    DateTimeField,
    Field,
    ForeignKey,
    IntegerField,
    Model,
    TextField,
    signals,
)
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute

from config import database


def _run(db, sql: str, params: list, *, answer):
    """Run one of the statements written out here and return `answer(cursor)` (its row, its row
    count). On PostgreSQL they are bound server side, so that each is prepared once per
    connection and its plan reused (planning a statement on the charges table costs the database
    more than running it); the rest of the code keeps Django's client-side binding.
    DB_PREPARED_STATEMENTS=false: no preparing."""
    kept = db.__dict__.get("_payments_bound_cursor")
    if kept is not None and not (db.queries_logged or db.execute_wrappers):
        db.close_if_health_check_failed()
        db.ensure_connection()
        if kept[0] is db.connection and not kept[2].closed:
            return _run_kept(db, kept[2], sql, params, answer=answer)
    with db.cursor() as cursor:
        if db.vendor == "postgresql" and db.connection.prepare_threshold is not None:
            own = cursor.cursor
            cursor.cursor = _bound_cursor(db, own)
            try:
                cursor.execute(sql, params)
                return answer(cursor)
            finally:
                cursor.cursor = own  # closed with the wrapper; the bound one is kept for next time
        cursor.execute(sql, params)
        return answer(cursor)


def _run_kept(db, bound, sql: str, params: list, *, answer):
    """`_run` on the bound cursor kept from an earlier statement of this connection (PostgreSQL,
    prepared statements), without building Django's cursor and the wrapper around it (they cost
    more than the statement): what they do for a statement is done here, in their order (the
    health check and the connection, by the caller; the thread, a transaction broken by an
    error, Django's exceptions, the time of the last query). Only while no query is logged or
    wrapped (tests that count queries, a debug toolbar): those go through Django's cursor."""
    db.validate_thread_sharing()
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        bound.execute(sql, params)
        result = answer(bound)
    database.query_ran(db)
    return result


def _first_row(cursor):
    return cursor.fetchone()


def _row_count(cursor) -> int:
    return cursor.rowcount


def _bound_cursor(db, own):
    """The connection's cursor that binds server side, with the time zone of Django's `own`."""
    from django.db.backends.postgresql.base import TIMESTAMPTZ_OID, ServerBindingCursor
    from psycopg.pq import Format

    raw = own.connection
    loader = own.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
    kept = db.__dict__.get("_payments_bound_cursor")
    if kept is None or kept[0] is not raw or kept[1] is not loader or kept[2].closed:
        bound = ServerBindingCursor(raw)
        if loader is not raw.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT):
            bound.adapters.register_loader(TIMESTAMPTZ_OID, loader)
        kept = db.__dict__["_payments_bound_cursor"] = (raw, loader, bound)
    return kept[2]


def exists(model, where: str, params: list) -> bool:
    """Whether a row of `model` matches `where` (SQL on its own columns), without the ORM
    compiling the query on each call."""
    db = connections[DEFAULT_DB_ALIAS]
    table = db.ops.quote_name(model._meta.db_table)
    sql = f"SELECT 1 FROM {table} WHERE {where} LIMIT 1"
    return _run(db, sql, params, answer=_first_row) is not None


# How a model's rows are read by read_one and read_many, worked out once per model, database and
# columns.
_read_plans: dict[tuple, tuple[str, list[str], list]] = {}


def read_one(model, where: str, params: list, *, fields: tuple[str, ...] | None = None):
    """The one row of `model` matching `where` (SQL on its own columns), or None. For the most
    frequent reads of the API (merchants poll their charges): the statement and the conversion
    of its columns are worked out once, so that no request pays for the ORM compiling a query;
    each column is read, and converted, as the ORM would. `fields` (attribute names): only
    those columns are read, the others are deferred as `.only()` defers them."""
    db = connections[DEFAULT_DB_ALIAS]
    plan = _plan_of(db, model, fields)
    row = _run(db, plan[0] + where, params, answer=_first_row)
    return None if row is None else _instance(db, model, plan, row)


def read_many(
    model,
    where: str,
    params: list,
    *,
    order_by: str,
    limit: int,
    offset: int = 0,
    fields: tuple[str, ...] | None = None,
) -> list:
    """The rows of `model` matching `where`, in the order `order_by` (SQL on its own columns),
    the first `offset` skipped and at most `limit`: a page of a list, read as read_one reads a
    row. The page's size and offset are parameters, so that one statement serves every page."""
    db = connections[DEFAULT_DB_ALIAS]
    plan = _plan_of(db, model, fields)
    sql = f"{plan[0]}{where} ORDER BY {order_by} LIMIT %s OFFSET %s"
    found = _run(db, sql, [*params, limit, offset], answer=_all_rows)
    return [_instance(db, model, plan, row) for row in found]


def _all_rows(cursor) -> list:
    return cursor.fetchall()


def _plan_of(db, model, fields: tuple[str, ...] | None) -> tuple[str, list[str], list]:
    key = (model, db.vendor, fields)
    plan = _read_plans.get(key)
    if plan is None:
        plan = _read_plans[key] = _read_plan(db, model, fields)
    return plan


def _instance(db, model, plan, row):
    """The model instance of a row read by a plan: each column converted as the ORM would, then
    the instance Model.from_db makes of those values, made directly where that comes to the
    same (_plainly_built): from_db's way costs more than reading the row (a page of charges)."""
    _select, names, converters = plan
    values = list(row)
    for index, column, functions in converters:
        for function in functions:
            values[index] = function(values[index], column, db)
    if not _plainly_built(model):
        return model.from_db(db.alias, names, values)
    instance = model.__new__(model)
    state = instance._state = ModelState()
    state.adding = False
    state.db = db.alias
    instance.__dict__.update(zip(names, values, strict=True))
    return instance


_plain_models: dict[type, bool] = {}


def _plainly_built(model) -> bool:
    """Whether Model.from_db(alias, names, values) makes nothing but an instance whose state is
    read from `alias` and whose attributes are the values: the model keeps Django's from_db and
    __init__, no receiver of pre_init or post_init is connected for it, and setting a column's
    attribute stores the value (no descriptor of its own, or a foreign key's id, which on a new
    instance only stores it)."""
    plain = _plain_models.get(model)
    if plain is None:
        plain = _plain_models[model] = (
            model.from_db.__func__ is Model.from_db.__func__
            and model.__init__ is Model.__init__
            and all(
                _stores_plainly(type(inspect.getattr_static(model, field.attname)))
                for field in model._meta.concrete_fields
            )
        )
    return (
        plain
        and not signals.pre_init.has_listeners(model)
        and not signals.post_init.has_listeners(model)
    )


# How a new instance of a model is made, worked out once per model (None: only by the model):
# the names its fields may be given by, its relations' (name, attname), and per field (name,
# attname, default, make_default, is_relation).
_new_plans: dict[type, tuple[frozenset[str], list[tuple], list[tuple]] | None] = {}


def new(model, **values):
    """`model(**values)`: a new, unsaved instance. Where Django's Model.__init__ comes to the same
    (_plainly_built, every field a column of its own, `values` naming fields only), the instance
    is made directly: each field given its value or its default (a callable one called afresh,
    as __init__ does), a related object set through the model's own descriptor, so that the key,
    the cached object and the instance's database come out as they do there. Model.__init__'s
    walk through every field costs a new charge more than its values' conversion for the
    insert."""
    plan = _new_plans.get(model, False)
    if plan is False:
        plan = _new_plans[model] = _new_plan(model)
    if plan is None or not _plainly_built(model) or not _plainly_given(plan, values):
        return model(**values)
    instance = model.__new__(model)
    instance._state = ModelState()
    attributes = instance.__dict__
    for name, attname, default, make_default, is_relation in plan[2]:
        if is_relation and name in values:
            setattr(instance, name, values[name])
        elif attname in values:
            attributes[attname] = values[attname]
        else:
            attributes[attname] = default if make_default is None else make_default()
    return instance


def _plainly_given(plan, values: dict) -> bool:
    """Whether `values` name fields only (not a property, not a typo), a relation by its object
    or by its key but not both, and none of them DEFERRED: the rest is Django's to say."""
    names, relations, _fields = plan
    return (
        values.keys() <= names
        and not any(name in values and attname in values for name, attname in relations)
        and not any(value is DEFERRED for value in values.values())
    )


def _new_plan(model) -> tuple[frozenset[str], list[tuple], list[tuple]] | None:
    meta = model._meta
    if meta.abstract or list(meta.fields) != list(meta.concrete_fields):
        return None
    if any(field.column is None or getattr(field, "generated", False) for field in meta.fields):
        return None
    return (
        frozenset([f.name for f in meta.fields] + [f.attname for f in meta.fields]),
        [(f.name, f.attname) for f in meta.fields if f.is_relation],
        [(f.name, f.attname, *_default_of(f), f.is_relation) for f in meta.fields],
    )


def _default_of(field) -> tuple:
    """(the value, None) when field.get_default() gives the same value every time (a default that
    is not callable, which Django hands out as it is, or the None or "" of a field without one),
    else (None, field.get_default): a callable default is called for each instance."""
    if field.has_default() and callable(field.default):
        return None, field.get_default
    return field.get_default(), None


def _stores_plainly(kind: type) -> bool:
    """Whether setting an attribute described by `kind` on a new instance only stores it."""
    return not hasattr(kind, "__set__") or kind is ForeignKeyDeferredAttribute


def _read_plan(db, model, fields: tuple[str, ...] | None) -> tuple[str, list[str], list]:
    table = model._meta.db_table
    chosen = [
        field
        for field in model._meta.concrete_fields
        if fields is None or field.attname in fields or field.primary_key
    ]
    if fields is not None and len(chosen) != len(set(fields) | {model._meta.pk.attname}):
        raise ValueError(f"{model.__name__} has no column among some of {fields}")
    columns = [field.get_col(table) for field in chosen]
    quote = db.ops.quote_name
    select = f"SELECT {', '.join(quote(f.column) for f in chosen)} FROM {quote(table)} WHERE "
    converters = [
        (index, column, converters)
        for index, column in enumerate(columns)
        if (converters := db.ops.get_db_converters(column) + column.get_db_converters(db))
    ]
    return select, [field.attname for field in chosen], converters


# How a model's rows are inserted, worked out once per model, database and condition.
_insert_plans: dict[tuple, tuple[str, list]] = {}


def insert(instance, *, unless: tuple | None = None) -> bool:
    """Insert `instance` as `instance.save(force_insert=True)` would (every concrete field; no
    signals, so only for models that have no receivers), in one statement. With
    `unless=(model, where, params)` (SQL on that model's own columns), nothing is inserted while
    a row of that model matches, decided by the same statement. Whether the row was inserted."""
    db = connections[DEFAULT_DB_ALIAS]
    model = type(instance)
    condition, params = None, []
    if unless is not None:
        other, where, params = unless
        condition = (other._meta.db_table, where)
    key = (model, db.vendor, condition)
    plan = _insert_plans.get(key)
    if plan is None:
        plan = _insert_plans[key] = _insert_plan(db, model, condition)
    statement, fields = plan
    values = prepared_values(db, instance, fields)
    inserted = _run(db, statement, values + list(params), answer=_row_count) == 1
    if inserted:
        instance._state.adding = False
        instance._state.db = db.alias
    return inserted


def prepared_values(db, instance, fields: list[tuple]) -> list:
    """The values the ORM would send for `fields` (each a field and its `_shortcut`). A value of
    a type its field's shortcut names is sent through that shortcut: the very conversion the
    ORM ends with, without the steps before it that leave such a value as it is (for a charge,
    those steps cost more than the rest of the insert in Python). Any other value goes the
    ORM's whole way."""
    values = []
    ops = db.ops
    for field, shortcut in fields:
        if shortcut is not None:
            value = getattr(instance, field.attname)
            kind = type(value)
            types, convert = shortcut
            if kind in types and (kind is not datetime or value.tzinfo is not None):
                values.append(value if convert is None or value is None else convert(ops, value))
                continue
        values.append(field.get_db_prep_save(field.pre_save(instance, True), db))
    return values


_NONE = type(None)


def _shortcut(db, field) -> tuple[tuple[type, ...], Callable | None] | None:
    """(the value types, the conversion) for which `field`'s way to the database (pre_save,
    get_db_prep_save) comes down to one conversion: None (sent as it is) or one of the database
    operations' adapters, called as conversion(connection.ops, value); None for a field with no
    such shortcut. Only Django's own field methods qualify: a field class that overrides one of
    them goes the whole way."""
    kind = type(field)
    if isinstance(field, ForeignKey):  # a key is sent as its target field sends it
        target = _shortcut(db, field.target_field)
        plain_text = ((str, _NONE), None)
        if (
            kind.get_db_prep_save is ForeignKey.get_db_prep_save
            and kind.pre_save is Field.pre_save
            and target == plain_text
            and not db.features.interprets_empty_strings_as_nulls
        ):
            return plain_text
        return None
    if kind.get_db_prep_save is not Field.get_db_prep_save:
        return None
    if kind.pre_save is Field.pre_save and kind.get_db_prep_value is Field.get_db_prep_value:
        if kind.get_prep_value in (CharField.get_prep_value, TextField.get_prep_value):
            return (str, _NONE), None
        if kind.get_prep_value is BooleanField.get_prep_value:
            return (bool,), None
        return None
    if (
        kind.pre_save is Field.pre_save
        and kind.get_prep_value is IntegerField.get_prep_value
        and kind.get_db_prep_value is IntegerField.get_db_prep_value
    ):
        internal_type = field.get_internal_type()
        return (int, _NONE), lambda ops, value: ops.adapt_integerfield_value(value, internal_type)
    if (
        kind.pre_save is DateTimeField.pre_save
        and not (field.auto_now or field.auto_now_add)
        and kind.get_prep_value is DateTimeField.get_prep_value
        and kind.get_db_prep_value is DateTimeField.get_db_prep_value
    ):
        return (datetime, _NONE), type(db.ops).adapt_datetimefield_value  # an aware datetime
    return None


def _insert_plan(db, model, condition: tuple[str, str] | None) -> tuple[str, list]:
    meta = model._meta
    fields = [
        (field, _shortcut(db, field))
        for field in meta.local_concrete_fields
        if field is not meta.auto_field
    ]
    quote = db.ops.quote_name
    columns = ", ".join(quote(field.column) for field, _how in fields)
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
