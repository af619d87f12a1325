<?php

// One charge for an order, or the exception that refused it, with every field of it.
//   php create_charge.php ORDER [AMOUNT]

declare(strict_types=1);

require __DIR__ . '/../../../clients/php/autoload.php';

$client = new \Congopay\Client();
$order = $argv[1];
$amount = (int) ($argv[2] ?? 250000);
try {
    $charge = $client->charges->create([
        'amount' => $amount,
        'currency' => 'CDF',
        'phone' => '+243812345678',
        'network' => 'VODACOM_MPESA',
        'metadata' => ['order' => $order],
    ]);
    echo json_encode(['charge' => $charge]), "\n";
} catch (\Congopay\Exception\ApiException $error) {
    echo json_encode(['error' => [
        'name' => (new \ReflectionClass($error))->getShortName(),
        'status' => $error->getStatus(),
        'type' => $error->getType(),
        'code' => $error->getErrorCode(),
        'param' => $error->getParam(),
        'message' => $error->getMessage(),
        'requestId' => $error->getRequestId(),
    ]]), "\n";
}
