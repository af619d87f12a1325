<?php

declare(strict_types=1);

namespace Congopay;

use Congopay\Exception\CongopayException;
use Congopay\Exception\WebhookVerificationException;
use Congopay\Model\Event;

/**
 * Webhook deliveries verified as the Standard Webhooks specification says
 * (https://www.standardwebhooks.com): an HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"
 * with the endpoint's whsec_… secret, a timestamp within five minutes of now.
 */
final class Webhook
{
    private const TOLERANCE = 5 * 60;
    private const SECRET_PREFIX = 'whsec_';

    /**
     * The event a delivery carries, once its signature and timestamp are verified; else a
     * WebhookVerificationException. Give it the raw body exactly as received
     * (file_get_contents('php://input'), never a re-encoded json_decode), the request's headers
     * (getallheaders(), or $_SERVER) and your endpoint's secret (whsec_…).
     *
     * @param array<string, string|list<string>> $headers
     */
    public static function unwrap(string $body, array $headers, #[\SensitiveParameter] string $secret): Event
    {
        $id = self::header($headers, 'webhook-id');
        $timestamp = self::header($headers, 'webhook-timestamp');
        $signatures = self::header($headers, 'webhook-signature');
        if ($id === null || $timestamp === null || $signatures === null) {
            throw new WebhookVerificationException(
                'Missing required headers: webhook-id, webhook-timestamp and webhook-signature.'
            );
        }
        if (!ctype_digit($timestamp)) {
            throw new WebhookVerificationException('Invalid webhook-timestamp: not a number of seconds.');
        }
        $now = time();
        if ($now - (int) $timestamp > self::TOLERANCE) {
            throw new WebhookVerificationException('Message timestamp too old.');
        }
        if ((int) $timestamp - $now > self::TOLERANCE) {
            throw new WebhookVerificationException('Message timestamp too new.');
        }
        $expected = self::digest($id, $timestamp, $body, $secret);
        // Several signatures while a secret is rotated; one that matches is enough.
        foreach (explode(' ', $signatures) as $candidate) {
            $parts = explode(',', $candidate, 2);
            if (count($parts) !== 2 || $parts[0] !== 'v1') {
                continue;
            }
            $given = base64_decode($parts[1], true);
            if ($given !== false && hash_equals($expected, $given)) {
                $event = json_decode($body, true);
                if (!is_array($event)) {
                    throw new WebhookVerificationException("The delivery's body is not a JSON object.");
                }
                return new Event($event);
            }
        }
        throw new WebhookVerificationException('No matching signature found.');
    }

    /**
     * The webhook-signature header of a body: to test your own handler with deliveries of your
     * making. $timestamp in seconds since 1970.
     */
    public static function sign(string $id, int $timestamp, string $body, #[\SensitiveParameter] string $secret): string
    {
        return 'v1,' . base64_encode(self::digest($id, (string) $timestamp, $body, $secret));
    }

    private static function digest(string $id, string $timestamp, string $body, string $secret): string
    {
        if (str_starts_with($secret, self::SECRET_PREFIX)) {
            $secret = substr($secret, strlen(self::SECRET_PREFIX));
        }
        $key = base64_decode($secret, true);
        if ($key === false || $key === '') {
            throw new CongopayException('The webhook secret is empty or not base64: give the whsec_… secret of your endpoint.');
        }
        return hash_hmac('sha256', "{$id}.{$timestamp}.{$body}", $key, true);
    }

    /**
     * A header's value whatever the case of its name, from getallheaders() or from $_SERVER
     * (HTTP_WEBHOOK_ID).
     *
     * @param array<string, string|list<string>> $headers
     */
    private static function header(array $headers, string $name): ?string
    {
        $server = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
        foreach ($headers as $key => $value) {
            if (strcasecmp((string) $key, $name) === 0 || $key === $server) {
                $value = is_array($value) ? implode(' ', $value) : (string) $value;
                return $value === '' ? null : $value;
            }
        }
        return null;
    }
}
