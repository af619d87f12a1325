<?php

// The client's pieces that need no service: its options, the retry rules, the objects.

declare(strict_types=1);

use Congopay\Client;
use Congopay\Exception\ApiConnectionException;
use Congopay\Exception\ApiException;
use Congopay\Exception\CongopayException;
use Congopay\Exception\InvalidRequestException;
use Congopay\Model\Charge;
use Congopay\Transport;

function test_a_client_without_a_key_says_how_to_give_one(): void
{
    $saved = getenv('CONGOPAY_API_KEY');
    putenv('CONGOPAY_API_KEY');
    try {
        throws(CongopayException::class, fn () => new Client(), 'CONGOPAY_API_KEY');
    } finally {
        if ($saved !== false) {
            putenv("CONGOPAY_API_KEY={$saved}");
        }
    }
}

function test_every_resource_is_on_the_client(): void
{
    $client = new Client(['api_key' => 'sk_test_unused']);
    check(method_exists($client->charges, 'create'), 'charges->create');
    check(method_exists($client->checkout->sessions, 'expire'), 'checkout->sessions->expire');
    check(method_exists($client->refunds, 'list'), 'refunds->list');
    check(method_exists($client->webhookEndpoint, 'rotateSecret'), 'webhookEndpoint->rotateSecret');
}

function test_what_is_retried_and_what_is_not(): void
{
    $answer = fn (int $status, string $type, string $code, array $headers = []): ApiException => ApiException::fromResponse(
        $status,
        $headers,
        json_encode(['error' => ['type' => $type, 'code' => $code, 'message' => 'x', 'param' => null, 'request_id' => 'req_1']]),
    );
    check(Transport::retryDelay(new ApiConnectionException('lost'), 0) !== null, 'a lost connection');
    check(Transport::retryDelay($answer(503, 'api_error', 'provider_unavailable'), 0) !== null, '5xx');
    check(Transport::retryDelay($answer(409, 'idempotency_error', 'idempotency_key_in_use'), 0) !== null, '409 in use');
    same(2.0, Transport::retryDelay($answer(429, 'rate_limit_error', 'rate_limited', ['retry-after' => '2']), 0), '429 waits as asked');
    same(null, Transport::retryDelay($answer(429, 'rate_limit_error', 'rate_limited', ['retry-after' => '3600']), 0), 'too long a wait');
    same(null, Transport::retryDelay($answer(400, 'invalid_request_error', 'amount_invalid'), 0), 'another 4xx');
    same(null, Transport::retryDelay($answer(409, 'idempotency_error', 'other'), 0), 'another 409');
    for ($attempt = 0; $attempt < 8; $attempt++) {
        $wait = Transport::backoff($attempt);
        check($wait > 0 && $wait <= 8.0, "backoff {$attempt}: {$wait}");
    }
}

function test_an_error_answer_is_the_exception_of_its_type_with_its_fields(): void
{
    $error = ApiException::fromResponse(400, ['request-id' => 'req_h'], json_encode(['error' => [
        'type' => 'invalid_request_error', 'code' => 'amount_invalid', 'message' => 'Amount invalid.',
        'param' => 'amount', 'request_id' => 'req_b',
    ]]));
    check($error instanceof InvalidRequestException, get_class($error));
    same(400, $error->getStatus());
    same('invalid_request_error', $error->getType());
    same('amount_invalid', $error->getErrorCode());
    same('amount', $error->getParam());
    same('req_h', $error->getRequestId());
    same('Amount invalid.', $error->getMessage());
}

function test_uuid4(): void
{
    check((bool) preg_match('/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', Transport::uuid4()), 'a UUID v4');
    check(Transport::uuid4() !== Transport::uuid4(), 'random');
}

function test_objects_read_as_properties_or_array_and_stay_as_answered(): void
{
    $charge = new Charge(['id' => 'ch_1', 'amount' => 250000, 'next_action' => null, 'metadata' => ['order' => '42']]);
    same('ch_1', $charge->id);
    same(250000, $charge['amount']);
    same(['order' => '42'], $charge->metadata);
    same(null, $charge->next_action);
    check(!isset($charge->missing), 'isset of a missing field');
    same('{"id":"ch_1","amount":250000,"next_action":null,"metadata":{"order":"42"}}', json_encode($charge));
    throws(\LogicException::class, function () use ($charge): void {
        $charge['amount'] = 1;
    });
}
