"""The team: invitations by e-mail, roles, removal, ownership. A merchant always keeps one owner;
an admin never touches an owner; a form sent twice does one thing; every change is audited."""

import re
from urllib.parse import urlsplit

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from django.utils import timezone

from dashboard.models import AuditEntry, Invitation, Membership
from tests.dashboard.conftest import PASSWORD, make_member, make_user, signed_in

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def actions(merchant) -> list[tuple[str, str]]:
    return list(
        AuditEntry.objects.filter(merchant=merchant)
        .order_by("id")
        .values_list("action", "object_id")
    )


def test_invite_mail_and_join_as_an_existing_user(shop, owner, django_capture_on_commit_callbacks):
    client = signed_in(owner.user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/dashboard/settings/team/", {"email": "Fin@Example.com", "role": "finance"}
        )
        assert response.status_code == 302
        client.post("/dashboard/settings/team/", {"email": "Fin@Example.com", "role": "finance"})
    assert Invitation.objects.filter(merchant=shop).count() == 1  # sent twice: one invitation
    assert len(mail.outbox) == 1
    (link,) = re.findall(r"https?://\S+/dashboard/invitations/\S+/", mail.outbox[0].body)
    assert mail.outbox[0].to == ["Fin@Example.com"]

    invitee = make_user("fin@example.com")
    other = signed_in(invitee)
    path = urlsplit(link).path
    assert other.get(path).status_code == 200
    assert other.post(path).status_code == 302
    assert other.post(path).status_code == 302  # accepted twice: one membership
    membership = Membership.objects.get(user=invitee, merchant=shop)
    assert membership.role == "finance"
    assert actions(shop) == [
        ("member.invited", "Fin@Example.com"),
        ("member.joined", "fin@example.com"),
    ]


def test_an_invitation_is_for_its_address_and_expires(shop, owner):
    invitation = Invitation.objects.create(merchant=shop, email="a@example.com", role="viewer")
    stranger = signed_in(make_user("b@example.com"))
    stranger.post(f"/dashboard/invitations/{invitation.key}/")
    assert not Membership.objects.filter(user__email="b@example.com").exists()
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now())
    invited = signed_in(make_user("a@example.com"))
    invited.post(f"/dashboard/invitations/{invitation.key}/")
    assert not Membership.objects.filter(user__email="a@example.com").exists()
    assert Client().get("/dashboard/invitations/no-such-key/").status_code == 404


def sign_up_from_the_link(invitation, email: str = "new@example.com") -> Client:
    """The invitation mail's link opened, then "Sign up" with the invited address, in one
    browser."""
    browser = Client()
    page = browser.get(f"/dashboard/invitations/{invitation.key}/").content.decode()
    assert "/accounts/signup/" in page
    response = browser.post(
        "/accounts/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302
    return browser


def test_a_new_person_signs_up_from_the_invitation_and_joins(shop, owner):
    """Signing up with the invited address needs no business name: after the address is
    confirmed the new user is a member with the invited role, and owns no merchant."""
    invitation = Invitation.objects.create(merchant=shop, email="new@example.com", role="support")
    sign_up_from_the_link(invitation)
    (membership,) = Membership.objects.filter(user__email="new@example.com")
    assert (membership.merchant, membership.role) == (shop, "support")
    assert ("member.joined", "new@example.com") in actions(shop)


def test_signing_up_with_an_invited_address_without_its_link_joins_nothing(shop, owner):
    """The address typed at sign-up is not verified yet: whoever types an invited address
    without having the invitation's mail (its link) joins no team, even once someone confirms
    the address. The invitation stays open for its link."""
    invitation = Invitation.objects.create(merchant=shop, email="new@example.com", role="finance")
    response = Client().post(
        "/accounts/signup/",
        {"email": "new@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    (address,) = EmailAddress.objects.filter(email="new@example.com")
    address.verified = True
    address.save(update_fields=["verified"])
    assert not Membership.objects.filter(user__email="new@example.com").exists()
    assert ("member.joined", "new@example.com") not in actions(shop)
    invitation.refresh_from_db()
    assert invitation.is_open
    # Signed in, the invitation's link asks to accept it, and only then joins.
    joined = signed_in(address.user)
    assert joined.get("/dashboard/test/").url == "/dashboard/start/"
    assert joined.post(f"/dashboard/invitations/{invitation.key}/").status_code == 302
    assert Membership.objects.get(user=address.user).role == "finance"


def test_the_link_opened_again_by_who_joined_leads_to_the_dashboard(shop, owner):
    """Signing up from the invitation brings the new member back to its link once the address
    is confirmed (the invitation accepted by then): the team's dashboard, not a page saying the
    invitation was used already."""
    invitation = Invitation.objects.create(merchant=shop, email="new@example.com", role="viewer")
    sign_up_from_the_link(invitation)
    joined = signed_in(Membership.objects.get(user__email="new@example.com").user)
    response = joined.get(f"/dashboard/invitations/{invitation.key}/", follow=True)
    assert response.redirect_chain[0][0] == "/dashboard/"
    assert response.context["request"].path == "/dashboard/test/"
    assert shop.name in response.content.decode()
    assert "déjà servi" not in response.content.decode()


def test_roles_change_and_members_leave_with_one_owner_always(shop, owner):
    client = signed_in(owner.user)
    dev = make_member(shop, "developer")
    assert (
        client.post(f"/dashboard/settings/team/{dev.pk}/role/", {"role": "admin"}).status_code
        == 302
    )
    dev.refresh_from_db()
    assert dev.role == "admin"
    # The only owner can neither demote nor remove themself.
    client.post(f"/dashboard/settings/team/{owner.pk}/role/", {"role": "viewer"})
    client.post(f"/dashboard/settings/team/{owner.pk}/remove/")
    owner.refresh_from_db()
    assert owner.role == "owner"
    assert client.post(f"/dashboard/settings/team/{dev.pk}/remove/").status_code == 302
    assert client.post(f"/dashboard/settings/team/{dev.pk}/remove/").status_code == 302  # twice
    assert not Membership.objects.filter(pk=dev.pk).exists()
    assert actions(shop) == [
        ("member.role_changed", dev.user.email),
        ("member.removed", dev.user.email),
    ]


def test_admins_never_touch_owners(shop, owner):
    admin = make_member(shop, "admin")
    client = signed_in(admin.user)
    assert (
        client.post(f"/dashboard/settings/team/{owner.pk}/role/", {"role": "viewer"}).status_code
        == 403
    )
    assert client.post(f"/dashboard/settings/team/{owner.pk}/remove/").status_code == 403
    viewer = make_member(shop, "viewer")
    response = client.post(f"/dashboard/settings/team/{viewer.pk}/role/", {"role": "owner"})
    assert response.status_code == 403
    response = client.post("/dashboard/settings/team/", {"email": "o@example.com", "role": "owner"})
    assert response.status_code in (200, 403)  # the role is not offered to an admin
    assert not Invitation.objects.filter(email="o@example.com").exists()
    owner.refresh_from_db(), viewer.refresh_from_db()
    assert (owner.role, viewer.role) == ("owner", "viewer")
    assert actions(shop) == []
    # but an admin manages the others
    assert (
        client.post(f"/dashboard/settings/team/{viewer.pk}/role/", {"role": "support"}).status_code
        == 302
    )


def test_ownership_moves_to_another_member(shop, owner):
    finance = make_member(shop, "finance")
    client = signed_in(owner.user)
    key = client.get("/dashboard/settings/security/").context["transfer_form"]
    form = {"member": finance.pk, "idempotency_key": key["idempotency_key"].value()}
    response = client.post("/dashboard/settings/security/transfer/", form)
    assert response.status_code == 302
    again = client.post("/dashboard/settings/security/transfer/", form)  # sent twice
    assert (again.status_code, again.url) == (302, "/dashboard/settings/team/")
    owner.refresh_from_db(), finance.refresh_from_db()
    assert (owner.role, finance.role) == ("admin", "owner")
    assert [action for action, _ in actions(shop)] == ["member.role_changed"] * 2
    # A new form from the former owner, now an admin: refused, nothing changes.
    fresh = {"member": finance.pk, "idempotency_key": "dash_taken_back"}
    assert client.post("/dashboard/settings/security/transfer/", fresh).status_code == 403
    finance.refresh_from_db()
    assert finance.role == "owner"
    assert Membership.objects.filter(merchant=shop, role="owner").count() == 1
    # the former owner, now an admin, cannot take it back
    assert client.get("/dashboard/settings/security/").status_code == 403
    # and the new owner may now demote them, keeping one owner
    signed_in(finance.user).post(f"/dashboard/settings/team/{owner.pk}/role/", {"role": "viewer"})
    owner.refresh_from_db()
    assert owner.role == "viewer"


@pytest.mark.django_db(transaction=True)
def test_two_owners_demoting_each_other_at_once_leave_one(shop, owner):
    from tests.helpers import race

    second = make_member(shop, "owner", email="second@example.com")
    clients = {owner.pk: signed_in(owner.user), second.pk: signed_in(second.user)}
    targets = iter([(owner.pk, second.pk), (second.pk, owner.pk)])

    def demote():
        actor, target = next(targets)
        return clients[actor].post(f"/dashboard/settings/team/{target}/role/", {"role": "viewer"})

    race(demote, 2)
    assert Membership.objects.filter(merchant=shop, role="owner").count() == 1


@pytest.mark.django_db(transaction=True)
def test_an_invitation_sent_several_times_at_once_invites_once(shop, owner):
    """A double click on Invite: one invitation, one mail (whose link leads to it), one row."""
    from tests.helpers import race

    clients = iter([signed_in(owner.user) for _ in range(3)])

    def invite():
        return (
            next(clients)
            .post("/dashboard/settings/team/", {"email": "new@example.com", "role": "viewer"})
            .status_code
        )

    assert race(invite, 3) == [302] * 3
    (invitation,) = Invitation.objects.filter(merchant=shop)
    assert [m.body.count(f"/dashboard/invitations/{invitation.key}/") for m in mail.outbox] == [1]
    assert actions(shop) == [("member.invited", "new@example.com")]


def test_an_admin_inviting_an_owner_is_forbidden(shop, owner):
    """The owner's role is not offered to an admin; a form sent with it anyway is a forbidden
    action: 403, no invitation, no mail."""
    admin = signed_in(make_member(shop, "admin").user)
    assert "owner" not in [
        value for value, _ in admin.get("/dashboard/settings/team/").context["roles"]
    ]
    response = admin.post("/dashboard/settings/team/", {"email": "x@example.com", "role": "owner"})
    assert response.status_code == 403
    assert not Invitation.objects.exists()
    assert len(mail.outbox) == 0


def test_a_used_invitation_sent_again_after_its_member_left_changes_nothing(shop, owner):
    invitation = Invitation.objects.create(merchant=shop, email="gone@example.com", role="viewer")
    gone = signed_in(make_user("gone@example.com"))
    assert gone.post(f"/dashboard/invitations/{invitation.key}/").status_code == 302
    member = Membership.objects.get(user__email="gone@example.com")
    signed_in(owner.user).post(f"/dashboard/settings/team/{member.pk}/remove/")
    response = gone.post(f"/dashboard/invitations/{invitation.key}/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302
    assert not Membership.objects.filter(user__email="gone@example.com").exists()
    shown = gone.get(response.url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "used already" in shown


def test_a_transfer_to_no_member_answers_404(shop, owner):
    client = signed_in(owner.user)
    # "²" is a digit to Python, not a number; the largest number names no row either
    for member in ("abc", "", "999999", "²", "9" * 30):
        response = client.post(
            "/dashboard/settings/security/transfer/",
            {"member": member, "idempotency_key": "dash_nobody"},
        )
        assert response.status_code == 404
    owner.refresh_from_db()
    assert owner.role == "owner"


def team_forms(client) -> dict[str, tuple[str, dict]]:
    """The invitations' forms on the team page: "resend <email>" / "revoke <email>" → (action,
    fields), as the page gives them."""
    page = client.get("/dashboard/settings/team/").content.decode()
    forms = {}
    for action, body in re.findall(r'<form[^>]*action="([^"]+)"[^>]*>(.*?)</form>', page, re.S):
        match = re.search(r"/invitations/(\d+)/(resend|revoke)/", action)
        if match:
            email = Invitation.objects.get(pk=match[1]).email
            fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', body))
            forms[f"{match[2]} {email}"] = (action, fields)
    return forms


def test_an_invitation_is_sent_again_once_per_form_and_valid_anew(
    shop, owner, django_capture_on_commit_callbacks
):
    invitation = Invitation.objects.create(
        merchant=shop, email="late@example.com", role="finance", invited_by=owner.user
    )
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now())  # expired
    client = signed_in(owner.user)
    page = client.get("/dashboard/settings/team/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "late@example.com" in page and "expired" in page  # still listed, to send again
    action, fields = team_forms(client)["resend late@example.com"]
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(action, fields).status_code == 302
        assert client.post(action, fields).status_code == 302  # a double click: one mail
    (sent,) = mail.outbox
    assert sent.to == ["late@example.com"]
    assert f"/dashboard/invitations/{invitation.key}/" in sent.body  # the same link
    invitation.refresh_from_db()
    assert invitation.is_open
    assert actions(shop) == [("invitation.resent", "late@example.com")]
    # another form (a later visit) sends it again
    action, fields = team_forms(client)["resend late@example.com"]
    with django_capture_on_commit_callbacks(execute=True):
        client.post(action, fields)
    assert len(mail.outbox) == 2


def test_a_revoked_invitation_opens_nothing_and_is_revoked_once(shop, owner):
    invitation = Invitation.objects.create(merchant=shop, email="no@example.com", role="viewer")
    client = signed_in(owner.user)
    action, fields = team_forms(client)["revoke no@example.com"]
    assert client.post(action, fields).status_code == 302
    assert client.post(action, fields).status_code == 302  # sent twice: revoked once
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None and not invitation.is_open
    assert actions(shop) == [("invitation.revoked", "no@example.com")]
    assert "revoke no@example.com" not in team_forms(client)
    # its link opens nothing, signed in as the address or not
    invitee = make_user("no@example.com")
    shown = Client().get(f"/dashboard/invitations/{invitation.key}/", HTTP_ACCEPT_LANGUAGE="en")
    assert "withdrawn" in shown.content.decode()
    assert signed_in(invitee).post(f"/dashboard/invitations/{invitation.key}/").status_code == 302
    assert not Membership.objects.filter(user=invitee).exists()
    # nor is it sent again
    resend = f"/dashboard/settings/team/invitations/{invitation.pk}/resend/"
    client.post(resend, {"idempotency_key": "dash_" + "r" * 32})
    assert len(mail.outbox) == 0
    # inviting the address again makes a new invitation
    client.post("/dashboard/settings/team/", {"email": "no@example.com", "role": "viewer"})
    assert Invitation.objects.filter(email="no@example.com", revoked_at=None).count() == 1


def test_resend_and_revoke_are_the_teams_and_an_owners_invitation_the_owners(
    shop, other_shop, owner
):
    ours = Invitation.objects.create(merchant=shop, email="o@example.com", role="viewer")
    boss = Invitation.objects.create(merchant=shop, email="b@example.com", role="owner")
    theirs = Invitation.objects.create(merchant=other_shop, email="t@example.com", role="viewer")
    key = {"idempotency_key": "dash_" + "k" * 32}
    admin = signed_in(make_member(shop, "admin").user)
    finance = signed_in(make_member(shop, "finance").user)
    for verb in ("resend", "revoke"):
        path = "/dashboard/settings/team/invitations/{}/" + verb + "/"
        assert finance.post(path.format(ours.pk), key).status_code == 403
        assert finance.post(path.format(theirs.pk), key).status_code == 404
        assert admin.post(path.format(theirs.pk), key).status_code == 404
        assert admin.post(path.format(999999), key).status_code == 404
        assert admin.post(path.format(boss.pk), key).status_code == 403  # an owner's: not theirs
        assert admin.get(path.format(ours.pk)).status_code == 405
    assert "b@example.com" not in [
        fields for fields in team_forms(admin) if fields.endswith("b@example.com")
    ]
    assert len(mail.outbox) == 0
    assert not AuditEntry.objects.filter(action__startswith="invitation.").exists()
    assert Invitation.objects.filter(revoked_at__isnull=False).count() == 0
