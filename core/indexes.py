"""Building and dropping indexes in the apps' migrations without locking a live table: on
PostgreSQL CREATE/DROP INDEX CONCURRENTLY (the migration then sets `atomic = False`: it cannot run
inside a transaction); elsewhere (SQLite) plainly. Migrations call these, so what a call does must
never change: add a function instead."""


def concurrently(schema_editor) -> bool:
    return schema_editor.connection.vendor == "postgresql"


def drop_index(schema_editor, name: str) -> None:
    keyword = " CONCURRENTLY" if concurrently(schema_editor) else ""
    schema_editor.execute(f"DROP INDEX{keyword} IF EXISTS {schema_editor.quote_name(name)}")


def build_index(
    schema_editor,
    table: str,
    name: str,
    columns: list[str],
    *,
    opclass: str = "",
    include: str = "",
    where: str = "",
) -> None:
    """CREATE INDEX IF NOT EXISTS `name` ON `table` (`columns`). An operator class (the LIKE
    copies PostgreSQL gets of text columns) exists on PostgreSQL only: with one, nothing is built
    elsewhere. `include` (a covering column) is PostgreSQL's too, and left out elsewhere. `where`
    (SQL on the table's columns, both databases): a partial index of the rows it holds for."""
    postgres, quote = concurrently(schema_editor), schema_editor.quote_name
    if opclass and not postgres:
        return
    keyed = ", ".join(quote(column) + (f" {opclass}" if opclass else "") for column in columns)
    cover = f" INCLUDE ({quote(include)})" if include and postgres else ""
    keyword = " CONCURRENTLY" if postgres else ""
    partial = f" WHERE {where}" if where else ""
    schema_editor.execute(
        f"CREATE INDEX{keyword} IF NOT EXISTS {quote(name)} ON {quote(table)} ({keyed}){cover}"
        f"{partial}"
    )


def drop_indexes(schema_editor, indexes: dict[str, tuple[str, str]]) -> None:
    """Drop each index of {name: (column, operator class)}."""
    for name in indexes:
        drop_index(schema_editor, name)


def build_indexes(schema_editor, table: str, indexes: dict[str, tuple[str, str]]) -> None:
    """Build each one-column index of {name: (column, operator class)} on `table`."""
    for name, (column, opclass) in indexes.items():
        build_index(schema_editor, table, name, [column], opclass=opclass)
