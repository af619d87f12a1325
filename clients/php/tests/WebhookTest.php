<?php

// \Congopay\Webhook::unwrap against the test vectors of the Standard Webhooks reference libraries:
// github.com/standard-webhooks/standard-webhooks, libraries/php/tests/WebhookTest.php and
// TestPayload.php at commit b2fa7b8719fb75d326b591077f5d1b385cfcdfae (their secret, message id,
// payload and the signature of testSignFunctionWorks).

declare(strict_types=1);

use Congopay\Exception\CongopayException;
use Congopay\Exception\WebhookVerificationException;
use Congopay\Webhook;

const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const PAYLOAD = '{"test": 2432232315}';
const SECRET = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const TOLERANCE = 5 * 60;

/**
 * The reference tests' TestPayload: a delivery signed at $timestamp.
 *
 * @return array{string, array<string, string>}
 */
function delivery(int $timestamp): array
{
    $signature = base64_encode(hash_hmac('sha256', MSG_ID . ".{$timestamp}." . PAYLOAD, base64_decode(SECRET), true));
    return [PAYLOAD, [
        'webhook-id' => MSG_ID,
        'webhook-signature' => "v1,{$signature}",
        'webhook-timestamp' => (string) $timestamp,
    ]];
}

function test_valid_signature_is_valid_and_returns_json(): void
{
    [$payload, $headers] = delivery(time());
    $event = Webhook::unwrap($payload, $headers, SECRET);
    same(2432232315, $event['test']);
    same(2432232315, $event->test);
}

function test_valid_signature_with_the_headers_of_getallheaders_or_server(): void
{
    [$payload, $headers] = delivery(time());
    $capitalised = [];
    $server = [];
    foreach ($headers as $name => $value) {
        $capitalised[ucwords($name, '-')] = $value;
        $server['HTTP_' . strtoupper(str_replace('-', '_', $name))] = $value;
    }
    same(2432232315, Webhook::unwrap($payload, $capitalised, SECRET)['test']);
    same(2432232315, Webhook::unwrap($payload, $server, SECRET)['test']);
}

function test_invalid_signature_throws_exception(): void
{
    [$payload, $headers] = delivery(time());
    $headers['webhook-signature'] = 'v1,dawfeoifkpqwoekfpqoekf';
    throws(WebhookVerificationException::class, fn () => Webhook::unwrap($payload, $headers, SECRET), 'No matching signature found');
}

function test_a_body_changed_after_signing_throws_exception(): void
{
    [, $headers] = delivery(time());
    throws(WebhookVerificationException::class, fn () => Webhook::unwrap('{"test": 2432232314}', $headers, SECRET), 'No matching signature found');
}

function test_missing_id_timestamp_or_signature_throws_exception(): void
{
    foreach (['webhook-id', 'webhook-timestamp', 'webhook-signature'] as $name) {
        [$payload, $headers] = delivery(time());
        unset($headers[$name]);
        throws(WebhookVerificationException::class, fn () => Webhook::unwrap($payload, $headers, SECRET), 'Missing required headers');
    }
}

function test_invalid_timestamp_throws_exception(): void
{
    [$payload, $headers] = delivery(time());
    $headers['webhook-timestamp'] = 'hello';
    throws(WebhookVerificationException::class, fn () => Webhook::unwrap($payload, $headers, SECRET));
}

function test_old_timestamp_throws_exception(): void
{
    [$payload, $headers] = delivery(time() - TOLERANCE - 1);
    throws(WebhookVerificationException::class, fn () => Webhook::unwrap($payload, $headers, SECRET), 'Message timestamp too old');
}

function test_new_timestamp_throws_exception(): void
{
    [$payload, $headers] = delivery(time() + TOLERANCE + 1);
    throws(WebhookVerificationException::class, fn () => Webhook::unwrap($payload, $headers, SECRET), 'Message timestamp too new');
}

function test_multi_sig_payload_is_valid(): void
{
    [$payload, $headers] = delivery(time());
    $headers['webhook-signature'] = implode(' ', [
        'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
        'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
        $headers['webhook-signature'], // the valid signature
        'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
    ]);
    same(2432232315, Webhook::unwrap($payload, $headers, SECRET)['test']);
}

function test_signature_verification_with_and_without_prefix(): void
{
    [$payload, $headers] = delivery(time());
    same(2432232315, Webhook::unwrap($payload, $headers, SECRET)['test']);
    same(2432232315, Webhook::unwrap($payload, $headers, 'whsec_' . SECRET)['test']);
}

function test_empty_key_raises_error(): void
{
    [$payload, $headers] = delivery(time());
    foreach (['', 'whsec_'] as $secret) {
        throws(CongopayException::class, fn () => Webhook::unwrap($payload, $headers, $secret));
    }
}

function test_sign_function_works(): void
{
    same(
        'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
        Webhook::sign(MSG_ID, 1614265330, '{"test": 2432232314}', 'whsec_' . SECRET),
    );
}
