<?php

// A partial refund of a succeeded charge, the charge after it, and the charge's refunds.
//   php refund.php CHARGE_ID AMOUNT

declare(strict_types=1);

require __DIR__ . '/../../../clients/php/autoload.php';

$client = new \Congopay\Client(); // CONGOPAY_API_KEY and CONGOPAY_BASE_URL
[, $chargeId, $amount] = $argv;
$refund = $client->refunds->create($chargeId, ['amount' => (int) $amount]);
$charge = $client->charges->retrieve($chargeId);
$refunds = [];
foreach ($client->refunds->list($chargeId) as $each) {
    $refunds[] = $each->id;
}
echo json_encode(['refund' => $refund, 'charge' => $charge, 'refunds' => $refunds]), "\n";
