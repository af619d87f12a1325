<?php

// A merchant's webhook endpoint, served by PHP's own server (`php -S 127.0.0.1:PORT receiver.php`):
// verifies each delivery from its raw body with \Congopay\Webhook::unwrap, answers 204 (or 400
// when it is refused), and records what it got as a JSON line in the file CONGOPAY_RECEIVED.

declare(strict_types=1);

require __DIR__ . '/../../../clients/php/autoload.php';

$body = file_get_contents('php://input'); // raw: the signature is over these bytes
$headers = getallheaders();
$record = static function (array $line): void {
    file_put_contents(getenv('CONGOPAY_RECEIVED'), json_encode($line) . "\n", FILE_APPEND | LOCK_EX);
};
$webhookHeaders = array_filter(
    array_change_key_case($headers),
    static fn (string $name): bool => str_starts_with($name, 'webhook-'),
    ARRAY_FILTER_USE_KEY,
);
try {
    $event = \Congopay\Webhook::unwrap($body, $headers, getenv('CONGOPAY_WEBHOOK_SECRET'));
    $record(['verified' => $event, 'class' => get_class($event->data->object), 'body' => $body, 'headers' => $webhookHeaders]);
    http_response_code(204);
} catch (\Congopay\Exception\WebhookVerificationException $error) {
    $record(['refused' => $error->getMessage(), 'headers' => $webhookHeaders]);
    http_response_code(400);
}
