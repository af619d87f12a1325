"""The dashboard's services: a file becomes a draft, its problems in words, submitted, approved
(the second approver's rule, the balance of the whole batch) or rejected; paid row by row, each
row following its payout; complete and announced once."""

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from batches import services
from batches.errors import BatchHasProblems, BatchStatusInvalid, SecondApproverRequired
from batches.models import BatchStatus, ItemStatus, PayoutBatch
from core.errors import BalanceInsufficient
from payments.models import Payout
from payments.providers.base import ProviderOutcome
from payments.services import payouts
from tests.factories import succeeded_mobile_money_charge
from webhooks.models import Event

pytestmark = pytest.mark.django_db

HEADER = "phone;amount;currency;network;reference;description\r\n"


def upload(merchant, lines: list[str], user=None, **kwargs) -> PayoutBatch:
    data = ("\ufeff" + HEADER + "".join(line + "\r\n" for line in lines)).encode()
    return services.batch_create_from_file(
        merchant=merchant,
        livemode=False,
        data=data,
        filename="salaires.csv",
        user_id=user.pk if user else None,
        **kwargs,
    )


def good_rows(count: int = 3, prefix: str = "SAL") -> list[str]:
    return [f"0812345{index:03d};100,00;CDF;;{prefix}-{index};Salaire" for index in range(count)]


@pytest.fixture
def users():
    model = get_user_model()
    return model.objects.create_user("amani"), model.objects.create_user("bijou")


@pytest.fixture
def funded(merchant):
    succeeded_mobile_money_charge(merchant, amount=1_000_000)
    return merchant


def submit(batch, user=None):
    return services.batch_submit(
        merchant=batch.merchant, livemode=False, batch_id=batch.id, user_id=user and user.pk
    )


def approve(batch, user=None, **kwargs):
    return services.batch_approve(
        merchant=batch.merchant, livemode=False, batch_id=batch.id, user_id=user and user.pk,
        **kwargs,
    )  # fmt: skip


def settle_all(batch, status="succeeded", failure_code=""):
    for item in batch.items.filter(status=ItemStatus.PENDING):
        payouts.payout_apply_outcome(
            payout_id=item.payout_id,
            outcome=ProviderOutcome(status=status, failure_code=failure_code),
        )


def test_a_file_becomes_a_draft_with_each_rows_problems_in_words(funded, users):
    batch = upload(
        funded,
        [
            "0812345678;25000;CDF;;A-1;",
            "0812345678;12,50;CDF;;A-2;",
            "12345;100;CDF;;A-3;",
            "0812345678;100;EUR;;A-4;",
            "0812345678;100;CDF;AIRTEL_MONEY;A-5;",
            "0812345678;100;CDF;;A-1;",
            "0812345678;100;CDF;;;",
        ],
        user=users[0],
    )
    assert batch.status == BatchStatus.DRAFT and batch.row_count == 7
    assert batch.created_by == users[0]
    preview = services.batch_preview(batch=batch)
    found = [(row, problem.column, problem.code) for row, problem in preview["problems"]]
    assert found == [
        (3, "amount", "amount_invalid"),
        (4, "phone", "phone_invalid"),
        (5, "currency", "currency_not_supported"),
        (6, "phone", "phone_network_mismatch"),
        (7, "reference", "reference_duplicate"),
        (8, "reference", "parameter_missing"),
    ]
    assert preview["submittable"] is False
    by_row = dict((row, problem) for row, problem in preview["problems"])
    with translation.override("fr"):
        assert "centimes" in by_row[3].message
        assert "ligne 2" in by_row[7].message
    with translation.override("en"):
        assert "cents" in by_row[3].message
        assert "row 2" in by_row[7].message
    first = batch.items.get(row=2)
    assert (first.phone, first.network, first.amount) == ("+243812345678", "VODACOM_MPESA", 2500000)
    with pytest.raises(BatchHasProblems):
        submit(batch, users[0])
    assert PayoutBatch.objects.get().status == BatchStatus.DRAFT


def test_the_preview_sets_each_currencys_total_against_the_balance(funded):
    batch = upload(funded, ["0812345678;2000;CDF;;T-1;", "0812345678;9000;CDF;;T-2;",
                            "0812345678;5;USD;;T-3;"])  # fmt: skip
    assert services.batch_preview(batch=batch)["totals"] == [
        {"currency": "CDF", "amount": 1100000, "fee": 0, "taken": 1100000, "available": 1000000,
         "covered": False},
        {"currency": "USD", "amount": 500, "fee": 0, "taken": 500, "available": 0,
         "covered": False},
    ]  # fmt: skip


PAYOUT_FEES = [
    {"kind": "payout", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 150},
    {"kind": "payout", "payment_method": "mobile_money", "network": "AIRTEL_MONEY",
     "currency": "CDF", "rate_bp": 200, "fixed": 100},
]  # fmt: skip


def test_the_preview_adds_each_rows_payout_fee_to_what_the_batch_takes(funded, settings):
    settings.PRICING_DEFAULT = PAYOUT_FEES
    batch = upload(funded, ["0812345678;2000;CDF;;T-1;", "0971234567;3000;CDF;;T-2;",
                            "0812;douze;CDF;;T-3;"])  # fmt: skip
    # M-Pesa: 1.5 % of 200 000 = 3 000; Airtel Money, its own rate: 2 % of 300 000 + 100.
    assert services.batch_preview(batch=batch)["totals"] == [
        {"currency": "CDF", "amount": 500000, "fee": 9100, "taken": 509100,
         "available": 1000000, "covered": True},
    ]  # fmt: skip
    big = upload(funded, ["0812345678;9900;CDF;;B-1;"])  # 990 000 + 14 850 > 1 000 000
    ((total),) = services.batch_preview(batch=big)["totals"]
    assert (total["taken"], total["covered"]) == (1004850, False)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "The available CDF balance is 300.00 CDF, less than the 304.50 CDF this payout "
               "batch takes: 300.00 CDF paid out and 4.50 CDF in fees."),
        ("fr", "Le solde disponible en CDF est de 300,00 CDF, moins que les 304,50 CDF que prend "
               "ce lot : 300,00 CDF versés et 4,50 CDF de frais."),
    ],
)  # fmt: skip
def test_approval_checks_the_payouts_and_their_fees_against_the_balance(
    merchant, users, settings, lang, words
):
    succeeded_mobile_money_charge(merchant, amount=30000)  # collected before fees: all of it
    settings.PRICING_DEFAULT = PAYOUT_FEES
    batch = submit(upload(merchant, good_rows(3)))  # 3 × 100 CDF, 1.50 CDF of fee each
    with translation.override(lang), pytest.raises(BalanceInsufficient) as refused:
        approve(batch, users[0])
    assert str(refused.value) == words
    assert PayoutBatch.objects.get().status == BatchStatus.AWAITING_APPROVAL
    assert not Payout.objects.exists()
    settings.PRICING_DEFAULT = []
    succeeded_mobile_money_charge(merchant, amount=1000)  # 310 CDF now
    settings.PRICING_DEFAULT = PAYOUT_FEES
    assert approve(batch, users[0]).status == BatchStatus.PROCESSING
    services.batch_pay(batch_id=batch.id)
    assert sorted(Payout.objects.values_list("amount", "fee")) == [(10000, 150)] * 3


def test_the_second_approver_must_be_another_member(funded, users):
    submitter, other = users
    batch = submit(upload(funded, good_rows(), user=submitter), submitter)
    assert batch.status == BatchStatus.AWAITING_APPROVAL and batch.submitted_by == submitter
    with pytest.raises(SecondApproverRequired) as refused:
        approve(batch, submitter, require_second_approver=True)
    assert refused.value.status == 403
    with pytest.raises(SecondApproverRequired):
        approve(batch, None, require_second_approver=True)
    assert PayoutBatch.objects.get().status == BatchStatus.AWAITING_APPROVAL
    approved = approve(batch, other, require_second_approver=True)
    assert approved.status == BatchStatus.PROCESSING and approved.approved_by == other
    assert set(approved.items.values_list("status", flat=True)) == {ItemStatus.QUEUED}
    with pytest.raises(BatchStatusInvalid):
        approve(batch, other, require_second_approver=True)


def test_without_a_second_approver_the_submitter_approves(funded, users):
    batch = submit(upload(funded, good_rows(), user=users[0]), users[0])
    assert approve(batch, users[0]).status == BatchStatus.PROCESSING


def test_only_a_submitted_batch_is_approved_and_a_draft_is_not_submitted_twice(funded, users):
    batch = upload(funded, good_rows())
    with pytest.raises(BatchStatusInvalid):
        approve(batch, users[1])
    submit(batch)
    with pytest.raises(BatchStatusInvalid):
        submit(batch)


def test_approval_checks_the_whole_batch_against_the_balance(merchant, users):
    succeeded_mobile_money_charge(merchant, amount=25000)
    batch = submit(upload(merchant, good_rows(3)))
    with pytest.raises(BalanceInsufficient) as refused:
        approve(batch, users[0])
    assert "CDF" in str(refused.value)
    assert PayoutBatch.objects.get().status == BatchStatus.AWAITING_APPROVAL
    assert not Payout.objects.exists()


def test_rejected_batches_pay_nothing_and_free_their_references(funded, users):
    batch = submit(upload(funded, good_rows()))
    rejected = services.batch_reject(
        merchant=funded, livemode=False, batch_id=batch.id, user_id=users[1].pk
    )
    assert rejected.status == BatchStatus.REJECTED and rejected.rejected_by == users[1]
    assert set(rejected.items.values_list("status", flat=True)) == {ItemStatus.CANCELED}
    with pytest.raises(BatchStatusInvalid):
        approve(batch, users[1])
    again = submit(upload(funded, good_rows()))
    assert again.status == BatchStatus.AWAITING_APPROVAL
    assert not Payout.objects.exists()


def test_a_submitted_batchs_references_are_not_paid_again(funded):
    first = upload(funded, good_rows(2))
    second = upload(funded, good_rows(2))  # both drafts: a draft holds no reference
    assert services.batch_preview(batch=second)["problems"] == []
    submit(first)
    with pytest.raises(BatchHasProblems) as refused:
        submit(second)
    assert first.id in str(refused.value)
    third = upload(funded, ["0812345678;100;CDF;;SAL-1;"])
    ((row, problem),) = services.batch_preview(batch=third)["problems"]
    assert (row, problem.code) == (2, "reference_duplicate") and first.id in problem.message


def test_rows_are_paid_once_follow_their_payouts_and_the_batch_completes_once(funded, users):
    batch = approve(submit(upload(funded, good_rows(4))), users[0])
    assert services.batch_pay(batch_id=batch.id) == 4
    assert services.batch_pay(batch_id=batch.id) == 0  # nothing left: nothing paid twice
    items = list(batch.items.order_by("row"))
    assert [item.status for item in items] == [ItemStatus.PENDING] * 4
    assert len({item.payout_id for item in items}) == 4
    assert Payout.objects.count() == 4
    payout = items[0].payout
    assert payout.metadata == {"payout_batch": batch.id, "reference": "SAL-0"}
    assert (payout.phone, payout.amount, payout.description) == ("+243812345000", 10000, "Salaire")
    payouts.payout_apply_outcome(
        payout_id=items[1].payout_id,
        outcome=ProviderOutcome(
            status="failed", failure_code="recipient_invalid", failure_message="No such wallet."
        ),
    )
    assert services.batch_counts(batch_id=batch.id) == {
        "total": 4, "pending": 3, "succeeded": 0, "failed": 1,
    }  # fmt: skip
    settle_all(batch)
    batch.refresh_from_db()
    assert batch.status == BatchStatus.COMPLETE and batch.completed_at
    assert services.batch_counts(batch_id=batch.id) == {
        "total": 4, "pending": 0, "succeeded": 3, "failed": 1,
    }  # fmt: skip
    failed = batch.items.get(row=3)
    assert (failed.status, failed.failure_code) == (ItemStatus.FAILED, "recipient_invalid")
    # Nothing was paid to that row: a later batch may pay its reference, not the others'.
    later = upload(funded, ["0812345678;100;CDF;;SAL-1;", "0812345678;100;CDF;;SAL-2;"])
    ((row, problem),) = services.batch_preview(batch=later)["problems"]
    assert (row, problem.code) == (3, "reference_duplicate")
    (event,) = Event.objects.filter(type="payout_batch.completed")
    shown = event.data["object"]
    assert shown["id"] == batch.id and shown["status"] == "complete"
    assert shown["counts"]["failed"] == 1

    lines = list(services.results_csv_lines(batch=batch))
    assert lines[0].startswith("\ufeffphone,amount,currency,network,reference,description,")
    table = list(csv.reader(io.StringIO("".join(lines).lstrip("\ufeff"))))
    assert table[0][-3:] == ["payout_id", "status", "failure_code"]
    assert table[2] == ["+243812345001", "100.00", "CDF", "VODACOM_MPESA", "SAL-1", "Salaire",
                        items[1].payout_id, "failed", "recipient_invalid"]  # fmt: skip


def test_a_row_that_meets_an_insufficient_balance_fails_alone_in_words(merchant, users):
    succeeded_mobile_money_charge(merchant, amount=30000)
    batch = approve(submit(upload(merchant, good_rows(3))), users[0])
    payouts.payout_create(
        merchant=merchant, livemode=False, amount=10000, currency="CDF",
        phone="+243812345678", network="VODACOM_MPESA",
    )  # fmt: skip  # spent elsewhere since the approval
    services.batch_pay(batch_id=batch.id)
    statuses = list(batch.items.order_by("row").values_list("status", "failure_code"))
    assert statuses == [("pending", ""), ("pending", ""), ("failed", "balance_insufficient")]
    assert "balance" in batch.items.get(row=4).failure_message
    assert not batch.items.get(row=4).reference_held
    settle_all(batch)
    batch.refresh_from_db()
    assert batch.status == BatchStatus.COMPLETE


def test_a_batch_whose_rows_all_fail_when_paid_completes(merchant, users, settings):
    succeeded_mobile_money_charge(merchant, amount=30000)
    batch = approve(submit(upload(merchant, good_rows(2))), users[0])
    from tests.factories import close_network

    close_network("VODACOM_MPESA")
    services.batch_pay(batch_id=batch.id)
    batch.refresh_from_db()
    assert batch.status == BatchStatus.COMPLETE
    assert set(batch.items.values_list("failure_code", flat=True)) == {"network_unavailable"}
    assert Event.objects.filter(type="payout_batch.completed").count() == 1


def test_the_results_keep_a_spreadsheet_from_reading_text_as_a_formula(funded, users):
    batch = upload(funded, ["0812345678;100;CDF;;=1+2;@SUM(A1)"])
    (header, line) = list(services.results_csv_lines(batch=batch))
    assert line == "+243812345678,100.00,CDF,VODACOM_MPESA,'=1+2,'@SUM(A1),,draft,\r\n"


def test_card_data_in_a_row_is_a_problem_of_its_cell_and_is_kept_nowhere(funded):
    batch = upload(
        funded,
        [
            "0812345678;100;CDF;;C-1;Carte 4111 1111 1111 1111 exp 12/29",
            "0812345678;100;CDF;;4111-1111-1111-1111;Prime",
            "0812345678;4111 1111 1111 1111;CDF;;C-3;",
            "4111111111111111;100;CDF;;C-4;",
            "0812345678;100;CDF;;C-5;Commande 12345678901234567890",  # a long reference: not a card
            "00243812345003;100;CDF;;C-6;",  # a number as typed: 14 digits, not a card
        ],
    )
    preview = services.batch_preview(batch=batch)
    found = [(row, problem.column, problem.code) for row, problem in preview["problems"]]
    assert found == [
        (2, "description", "card_data_forbidden"),
        (3, "reference", "card_data_forbidden"),
        (4, "amount", "card_data_forbidden"),
        (5, "phone", "card_data_forbidden"),
    ]
    assert preview["submittable"] is False
    problem = preview["problems"][0][1]
    assert "card data" in problem.messages["en"] and "description" in problem.messages["en"]
    assert "données de carte" in problem.messages["fr"]
    # Neither the row nor the words of its problems keep the number.
    kept = str(list(batch.items.values()))
    for digits in ("4111 1111", "4111-1111", "4111111111111111"):
        assert digits not in kept
    with pytest.raises(BatchHasProblems):
        submit(batch)


def test_the_results_keep_every_cell_typed_by_people_from_being_read_as_a_formula(funded):
    batch = upload(funded, ["=2+5*cmd|' /C calc'!A0;100;@SUM(A1);-2+3;+R-1;=HYPERLINK(\"x\")"])
    (header, line) = list(services.results_csv_lines(batch=batch))
    (cells,) = csv.reader(io.StringIO(line))
    assert cells == ["'=2+5*cmd|' /C calc'!A0", "100.00", "'@SUM(A1)", "'-2+3", "'+R-1",
                     "'=HYPERLINK(\"x\")", "", "draft", ""]  # fmt: skip
