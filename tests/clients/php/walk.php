<?php

// Every charge, walked LIMIT at a time; and the first page alone.
//   php walk.php LIMIT

declare(strict_types=1);

require __DIR__ . '/../../../clients/php/autoload.php';

$client = new \Congopay\Client();
$limit = (int) $argv[1];
$firstPage = $client->charges->list(['limit' => $limit])->page();
$ids = [];
foreach ($client->charges->list(['limit' => $limit]) as $charge) {
    $ids[] = $charge->id;
}
echo json_encode(['first_page' => $firstPage, 'ids' => $ids]), "\n";
