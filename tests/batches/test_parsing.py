"""Reading payout batch files as spreadsheets really write them."""

import pytest

from batches.parsing import MAX_BYTES, FileRefused, parse_amount, parse_file

HEADER = "phone,amount,currency,network,reference,description"


def codes(row) -> list[tuple[str | None, str]]:
    return [(problem.column, problem.code) for problem in row.problems]


def test_excel_semicolons_with_a_bom_windows_line_ends_decimal_commas_and_trailing_empty_rows():
    data = (
        "\ufeffphone;amount;currency;network;reference;description\r\n"
        "0812345678;12,00;CDF;;SAL-1;Salaire novembre\r\n"
        "+243 97 123 4567;25000;cdf;AIRTEL_MONEY;SAL-2;Prime\r\n"
        ";;;;;\r\n"
        ";;;;;\r\n"
        "\r\n"
    ).encode()
    rows = parse_file(data)
    assert [row.number for row in rows] == [2, 3]
    assert [row.amount for row in rows] == [1200, 2500000]
    assert [row.problems for row in rows] == [[], []]
    assert rows[0].description == "Salaire novembre"
    assert rows[1].phone == "+243 97 123 4567"  # normalised by the checks, not by the reading


@pytest.mark.parametrize("delimiter", [",", ";"])
@pytest.mark.parametrize("above", ["\r\n", "\n\n", "{d}{d}{d}{d}{d}\r\n", " \n"])
def test_empty_rows_above_the_header_are_passed_over(above, delimiter):
    above = above.format(d=delimiter)
    header = HEADER.replace(",", delimiter)
    row = delimiter.join(["+243812345678", "100", "CDF", "", "R-1", ""])
    data = f"{above}{header}\n{row}\n".encode()
    (row,) = parse_file(data)
    assert (row.reference, row.amount, row.problems) == ("R-1", 10000, [])
    assert row.number == 2 + above.count("\n")  # the row's line in the file


def test_commas_with_a_quoted_decimal_comma_and_unix_line_ends():
    data = f'{HEADER}\n+243812345678,"12,00",USD,VODACOM_MPESA,R-1,\n'.encode()
    (row,) = parse_file(data)
    assert (row.amount, row.currency, row.problems) == (1200, "USD", [])


def test_an_unquoted_decimal_comma_in_a_comma_file_is_a_cell_too_many_in_words():
    data = f"{HEADER}\n+243812345678,12,00,USD,VODACOM_MPESA,R-1,Note\n".encode()
    (row,) = parse_file(data)
    assert (None, "row_invalid") in codes(row)
    message = next(p for p in row.problems if p.column is None).messages
    assert '"12,00"' in message["en"] and '"12,00"' in message["fr"]


def test_an_unquoted_decimal_comma_is_found_even_when_the_cell_it_pushes_out_is_empty():
    data = f"{HEADER}\n+243812345678,12,00,USD,VODACOM_MPESA,R-1,\n".encode()
    (row,) = parse_file(data)
    assert codes(row) == [(None, "row_invalid")]  # not what the shifted cells would say
    assert row.amount is None


def test_network_and_description_columns_may_be_left_out_and_in_any_order():
    data = b"reference;currency;amount;phone\nR-1;CDF;5000;0971234567\n"
    (row,) = parse_file(data)
    assert (row.reference, row.amount, row.phone, row.network) == ("R-1", 500000, "0971234567", "")


@pytest.mark.parametrize(
    ("typed", "minor"),
    [("25000", 2500000), ("25000.00", 2500000), ("12,00", 1200), ("12,0", 1200), (" 7 ", 700)],
)
def test_amounts_people_type_are_read_exactly(typed, minor):
    assert parse_amount(typed) == (minor, None)


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("25 000", "thousands separator"),
        ("25\u00a0000", "thousands separator"),
        ("25,000.00", "thousands separator"),
        ("25.000", "thousands separator"),
        ("25,000", "thousands separator"),
        ("1.5000", "more than 2 decimals"),
        ("12,50", "cents"),
        ("12.5", "cents"),
        ("0", "greater than zero"),
        ("-5", "not an amount"),
        ("12 CDF", "not an amount"),
        ("1e5", "not an amount"),
        ("", "missing"),
    ],
)
def test_amounts_refused_in_words_in_both_languages(typed, words):
    amount, problem = parse_amount(typed)
    assert amount is None
    assert problem.column == "amount"
    assert words in problem.messages["en"]
    assert problem.messages["fr"] and problem.messages["fr"] != problem.messages["en"]


def test_a_quoted_thousands_separator_in_a_comma_file_is_refused_on_its_row():
    data = f'{HEADER}\n+243812345678,"25,000",CDF,VODACOM_MPESA,R-1,\n'.encode()
    (row,) = parse_file(data)
    assert codes(row) == [("amount", "amount_invalid")]
    assert "thousands separator" in row.problems[0].messages["en"]


def test_1000_rows_are_taken_and_1001_refused():
    line = "+243812345678;1000;CDF;VODACOM_MPESA;R-{};\n"
    head = "phone;amount;currency;network;reference;description\n"
    assert len(parse_file((head + "".join(line.format(i) for i in range(1000))).encode())) == 1000
    with pytest.raises(FileRefused) as refused:
        parse_file((head + "".join(line.format(i) for i in range(1001))).encode())
    assert refused.value.problem.code == "too_many_rows"
    assert "1001" in refused.value.problem.messages["en"]
    assert "1001" in refused.value.problem.messages["fr"]


def test_a_file_over_1_mb_is_refused_in_words():
    head = f"{HEADER}\n".encode()
    data = head + b"+243812345678,1000,CDF,VODACOM_MPESA,R-1," + b"x" * MAX_BYTES + b"\n"
    with pytest.raises(FileRefused) as refused:
        parse_file(data)
    assert refused.value.problem.code == "file_too_large"
    assert "1 MB" in refused.value.problem.messages["en"]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "file_empty"),
        (f"{HEADER}\n\n,,,,,\r\n".encode(), "file_empty"),
        (
            "phone;amount;currency;reference\n0812345678;10;CDF;é\n".encode("cp1252"),
            "file_not_utf8",
        ),
        (b"mobile,amount,currency,reference\n", "header_invalid"),
        (b"phone,amount,currency\n", "header_invalid"),
        (b"phone,amount,amount,currency,reference\n", "header_invalid"),
        (b'"";""\n;;\n', "file_empty"),
        # No spreadsheet writes NUL, and no database keeps it: the file is refused whole.
        (f"{HEADER}\n+243812345678,100,CDF,,R-1,Prime\x00\n".encode(), "file_invalid"),
        (f"{HEADER}\n+243812345678\x00,100,CDF,,R-1,\n".encode(), "file_invalid"),
    ],
)
def test_files_that_cannot_be_a_batch_are_refused_in_words(data, code):
    with pytest.raises(FileRefused) as refused:
        parse_file(data)
    assert refused.value.problem.code == code
    assert refused.value.problem.messages["fr"]


@pytest.mark.parametrize("delimiter", [",", ";"])
@pytest.mark.parametrize(
    "text",
    ['Prime "novembre"{delimiter} bonus', 'Prime "novembre" bonus', '"Prime"{delimiter} ""'],
)
def test_quotes_doubled_inside_a_quoted_cell_are_read_as_spreadsheets_write_them(delimiter, text):
    text = text.format(delimiter=delimiter)
    quoted = '"' + text.replace('"', '""') + '"'
    cells = ["0812345678", "100", "CDF", "", '"R ""1"""', quoted]
    data = HEADER.replace(",", delimiter) + "\r\n" + delimiter.join(cells) + "\r\n"
    (row,) = parse_file(data.encode())
    assert (row.reference, row.description, row.problems) == ('R "1"', text, [])
