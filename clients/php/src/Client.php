<?php

declare(strict_types=1);

namespace Congopay;

use Congopay\Exception\CongopayException;

/**
 * The Congopay client:
 *
 *     $client = new \Congopay\Client(['api_key' => 'sk_test_…']);
 *     $charge = $client->charges->create(['amount' => 250000, 'currency' => 'CDF', …]);
 *     foreach ($client->charges->list() as $charge) { … }
 *
 * Options: api_key (default: the CONGOPAY_API_KEY environment variable), base_url (default:
 * CONGOPAY_BASE_URL, else http://127.0.0.1:8000, `make run`), max_retries (2), timeout (seconds
 * an attempt may take, 30), headers (sent with every request: ['Accept-Language' => 'fr'] for
 * errors in French).
 */
final class Client extends Resources
{
    private const DEFAULT_BASE_URL = 'http://127.0.0.1:8000';

    /**
     * @param array{api_key?: string, base_url?: string, max_retries?: int, timeout?: float, headers?: array<string, string>} $options
     */
    public function __construct(#[\SensitiveParameter] array $options = [])
    {
        $apiKey = $options['api_key'] ?? (getenv('CONGOPAY_API_KEY') ?: null);
        if (!is_string($apiKey) || $apiKey === '') {
            throw new CongopayException(
                "An API key is needed: new \\Congopay\\Client(['api_key' => 'sk_test_…']), or CONGOPAY_API_KEY."
            );
        }
        $baseUrl = $options['base_url'] ?? (getenv('CONGOPAY_BASE_URL') ?: self::DEFAULT_BASE_URL);
        parent::__construct(new Transport(
            $apiKey,
            rtrim($baseUrl, '/'),
            (int) ($options['max_retries'] ?? 2),
            (float) ($options['timeout'] ?? 30),
            $options['headers'] ?? [],
        ));
    }
}
