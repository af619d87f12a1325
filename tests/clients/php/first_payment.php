<?php

// A first payment: 2 500.00 CDF from a Vodacom M-Pesa customer whose number the sandbox
// approves, followed by retrieving it until it is no longer pending.
//   php first_payment.php ORDER

declare(strict_types=1);

require __DIR__ . '/../../../clients/php/autoload.php';

$client = new \Congopay\Client([
    'api_key' => getenv('CONGOPAY_API_KEY'),
    'base_url' => getenv('CONGOPAY_BASE_URL'),
]);
$created = $client->charges->create([
    'amount' => 250000,
    'currency' => 'CDF',
    'phone' => '+243812345678',
    'network' => 'VODACOM_MPESA',
    'metadata' => ['order' => $argv[1]],
]);
$charge = $client->charges->retrieve($created->id);
$deadline = time() + 120; // the sandbox answers within seconds
while ($charge->status === 'pending' && time() < $deadline) {
    usleep(250_000);
    $charge = $client->charges->retrieve($created->id);
}
echo json_encode(['created' => $created, 'charge' => $charge, 'class' => get_class($charge)]), "\n";
