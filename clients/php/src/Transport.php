<?php

declare(strict_types=1);

namespace Congopay;

use Congopay\Exception\ApiConnectionException;
use Congopay\Exception\ApiException;
use Congopay\Exception\ApiTimeoutException;

/**
 * The transport every resource goes through: the key, JSON in and out, an idempotency key on every
 * POST that the retries reuse, retries with backoff on what may succeed on a second try.
 */
final class Transport
{
    public const VERSION = '0.1.0';

    /** A Retry-After longer than this (seconds) is not waited for: the exception is thrown at once. */
    private const LONGEST_RETRY_AFTER = 60.0;

    /**
     * @param array<string, string> $headers sent with every request
     */
    public function __construct(
        #[\SensitiveParameter] private readonly string $apiKey,
        public readonly string $baseUrl,
        public readonly int $maxRetries,
        public readonly float $timeout,
        private readonly array $headers = [],
    ) {
    }

    /**
     * One request, retried as retryDelay() allows; the answer's decoded JSON (or its text).
     *
     * @param array<string, mixed>|null $query
     * @param array<string, mixed>|null $body
     * @param array{idempotency_key?: string, max_retries?: int, timeout?: float, headers?: array<string, string>} $options
     */
    public function request(
        string $method,
        string $path,
        ?array $query = null,
        ?array $body = null,
        array $options = [],
        bool $text = false,
    ): mixed {
        $url = $this->baseUrl . $path;
        if ($query) {
            $url .= '?' . http_build_query(self::queryValues($query), '', '&', PHP_QUERY_RFC3986);
        }
        $headers = [
            'Accept' => $text ? 'text/csv, application/json' : 'application/json',
            'User-Agent' => 'congopay-php/' . self::VERSION . ' php/' . PHP_VERSION,
            'Expect' => '', // no "100-continue" round trip before a body
        ];
        foreach ([...$this->headers, ...($options['headers'] ?? [])] as $name => $value) {
            $headers[$name] = $value;
        }
        $headers['Authorization'] = 'Bearer ' . $this->apiKey;
        $payload = null;
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
            $payload = json_encode($body === [] ? new \stdClass() : $body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        }
        if ($method === 'POST') {
            // One key for every attempt: a retry of a POST whose answer was lost gets the first
            // answer again instead of doing the thing twice.
            $headers['Idempotency-Key'] = $options['idempotency_key'] ?? self::uuid4();
            $payload ??= '';
        }
        $maxRetries = $options['max_retries'] ?? $this->maxRetries;
        $timeout = (float) ($options['timeout'] ?? $this->timeout);
        for ($attempt = 0; ; $attempt++) {
            try {
                [$status, $answerHeaders, $answer] = $this->send($method, $url, $headers, $payload, $timeout);
                if ($status >= 200 && $status < 300) {
                    if ($text) {
                        return $answer;
                    }
                    return $answer === '' ? null : json_decode($answer, true, 512, JSON_THROW_ON_ERROR);
                }
                $error = ApiException::fromResponse($status, $answerHeaders, $answer);
            } catch (ApiConnectionException $lost) {
                $error = $lost;
            }
            $wait = $attempt < $maxRetries ? self::retryDelay($error, $attempt) : null;
            if ($wait === null) {
                throw $error;
            }
            usleep((int) round($wait * 1_000_000));
        }
    }

    /**
     * How long (seconds) to wait before trying the request of $error again, or null when it must
     * not be: lost connections and timeouts, 409 idempotency_key_in_use, 429 and 5xx may succeed on
     * another try (the idempotency key makes a POST safe to send again); another 4xx never does.
     */
    public static function retryDelay(ApiException $error, int $attempt): ?float
    {
        $status = $error->getStatus();
        $retryable = $error instanceof ApiConnectionException
            || $status === 429
            || ($status !== null && $status >= 500)
            || ($status === 409 && $error->getErrorCode() === 'idempotency_key_in_use');
        if (!$retryable) {
            return null;
        }
        $asked = self::retryAfter($error->getHeaders()['retry-after'] ?? null);
        if ($asked === null) {
            return self::backoff($attempt);
        }
        return $asked <= self::LONGEST_RETRY_AFTER ? $asked : null;
    }

    /** Exponential backoff (seconds), with jitter so that many clients do not come back together. */
    public static function backoff(int $attempt): float
    {
        $ceiling = min(0.5 * 2 ** $attempt, 8.0);
        return $ceiling / 2 + (mt_rand() / mt_getrandmax()) * ($ceiling / 2);
    }

    /** Retry-After in seconds (a number of seconds or an HTTP date), or null. */
    public static function retryAfter(?string $value): ?float
    {
        if ($value === null || trim($value) === '') {
            return null;
        }
        if (ctype_digit(trim($value))) {
            return (float) trim($value);
        }
        $date = strtotime($value);
        return $date === false ? null : max(0.0, (float) ($date - time()));
    }

    /** A UUID v4 (RFC 9562): 122 random bits. */
    public static function uuid4(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0f) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }

    /**
     * @param array<string, mixed> $query
     * @return array<string, mixed>
     */
    private static function queryValues(array $query): array
    {
        $values = [];
        foreach ($query as $name => $value) {
            if ($value === null) {
                continue;
            }
            $values[$name] = is_bool($value) ? ($value ? 'true' : 'false') : $value;
        }
        return $values;
    }

    /**
     * @param array<string, string> $headers
     * @return array{int, array<string, string>, string} status, headers (names in lower case), body
     */
    private function send(string $method, string $url, array $headers, ?string $payload, float $timeout): array
    {
        $handle = curl_init();
        $answerHeaders = [];
        $lines = [];
        foreach ($headers as $name => $value) {
            $lines[] = $value === '' ? "{$name}:" : "{$name}: {$value}";
        }
        $milliseconds = max(1, (int) round($timeout * 1000));
        curl_setopt_array($handle, [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_CONNECTTIMEOUT_MS => $milliseconds,
            CURLOPT_TIMEOUT_MS => $milliseconds,
            CURLOPT_HEADERFUNCTION => static function ($handle, string $line) use (&$answerHeaders): int {
                if (preg_match('/^HTTP\//', $line)) {
                    $answerHeaders = []; // a new answer (after a 100 Continue)
                } elseif (str_contains($line, ':')) {
                    [$name, $value] = explode(':', $line, 2);
                    $answerHeaders[strtolower(trim($name))] = trim($value);
                }
                return strlen($line);
            },
        ]);
        if ($payload !== null) {
            curl_setopt($handle, CURLOPT_POSTFIELDS, $payload);
        }
        $answer = curl_exec($handle);
        if ($answer === false) {
            $number = curl_errno($handle);
            $message = curl_error($handle);
            $host = parse_url($url, PHP_URL_HOST);
            if ($number === CURLE_OPERATION_TIMEDOUT) {
                throw new ApiTimeoutException("No answer from {$host} within {$timeout} s.");
            }
            throw new ApiConnectionException("No answer from {$host}: {$message}.");
        }
        $status = (int) curl_getinfo($handle, CURLINFO_RESPONSE_CODE);
        return [$status, $answerHeaders, (string) $answer];
    }
}
