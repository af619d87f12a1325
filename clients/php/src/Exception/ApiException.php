<?php

declare(strict_types=1);

namespace Congopay\Exception;

/**
 * The service refused the request (getStatus() is its HTTP status), or no answer came
 * (ApiConnectionException, without a status). Branch on getErrorCode(); show getMessage();
 * quote getRequestId() to support.
 */
class ApiException extends CongopayException
{
    private const CLASSES = [
        'invalid_request_error' => InvalidRequestException::class,
        'authentication_error' => AuthenticationException::class,
        'permission_error' => PermissionException::class,
        'idempotency_error' => IdempotencyException::class,
        'rate_limit_error' => RateLimitException::class,
        'api_error' => ApiServerException::class,
    ];

    /**
     * @param array<string, string> $headers the answer's headers, names in lower case
     */
    final public function __construct(
        string $message,
        private readonly ?int $status = null,
        private readonly ?string $type = null,
        private readonly ?string $errorCode = null,
        private readonly ?string $param = null,
        private readonly ?string $requestId = null,
        private readonly array $headers = [],
        private readonly mixed $body = null,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
    }

    /**
     * The exception an answer of the service carries, of the class of its type.
     *
     * @param array<string, string> $headers names in lower case
     */
    public static function fromResponse(int $status, array $headers, string $body): self
    {
        $decoded = json_decode($body, true);
        $detail = is_array($decoded) && is_array($decoded['error'] ?? null) ? $decoded['error'] : [];
        $type = is_string($detail['type'] ?? null) ? $detail['type'] : null;
        $class = self::CLASSES[$type] ?? ($status >= 500 ? ApiServerException::class : self::class);
        $requestId = $headers['request-id'] ?? (is_string($detail['request_id'] ?? null) ? $detail['request_id'] : null);

        return new $class(
            is_string($detail['message'] ?? null) ? $detail['message'] : "The service answered HTTP {$status}.",
            $status,
            $type,
            is_string($detail['code'] ?? null) ? $detail['code'] : null,
            is_string($detail['param'] ?? null) ? $detail['param'] : null,
            $requestId,
            $headers,
            $decoded ?? $body,
        );
    }

    /** The HTTP status; null when no answer came. */
    public function getStatus(): ?int
    {
        return $this->status;
    }

    /** invalid_request_error, authentication_error, permission_error, idempotency_error, rate_limit_error or api_error. */
    public function getType(): ?string
    {
        return $this->type;
    }

    /** A stable code to branch on: parameter_missing, amount_invalid, resource_missing, … (getCode() is PHP's own integer). */
    public function getErrorCode(): ?string
    {
        return $this->errorCode;
    }

    /** The parameter or header at fault, when there is one. */
    public function getParam(): ?string
    {
        return $this->param;
    }

    /** The request's id (the Request-Id header), to quote to support. */
    public function getRequestId(): ?string
    {
        return $this->requestId;
    }

    /** @return array<string, string> the answer's headers, names in lower case */
    public function getHeaders(): array
    {
        return $this->headers;
    }

    /** The answer's body, decoded when it is JSON. */
    public function getBody(): mixed
    {
        return $this->body;
    }
}
