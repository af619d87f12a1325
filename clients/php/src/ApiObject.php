<?php

declare(strict_types=1);

namespace Congopay;

/**
 * An object of the API as the service answered it: read its fields as properties
 * ($charge->amount) or as an array ($charge['amount']); toArray() gives the decoded JSON back.
 * The classes of Congopay\Model document each object's fields for your editor and static analysis.
 *
 * @implements \ArrayAccess<string, mixed>
 * @implements \IteratorAggregate<string, mixed>
 */
class ApiObject implements \ArrayAccess, \IteratorAggregate, \JsonSerializable
{
    /**
     * The fields holding objects: field => class, or [class] for a list of them.
     *
     * @var array<string, class-string<ApiObject>|array{class-string<ApiObject>}>
     */
    protected const TYPES = [];

    /** @var array<string, mixed> */
    private array $values = [];

    /** @var array<string, mixed> */
    private array $raw;

    /** @param array<string, mixed> $values the decoded JSON */
    final public function __construct(array $values)
    {
        $this->raw = $values;
        foreach ($values as $name => $value) {
            $this->values[$name] = self::wrap(static::TYPES[$name] ?? null, $value);
        }
    }

    /**
     * The object of decoded JSON: of this class, or of the one a discriminator names.
     *
     * @param array<string, mixed> $values
     */
    public static function from(array $values): ApiObject
    {
        return new static($values);
    }

    /** @param class-string<ApiObject>|array{class-string<ApiObject>}|null $type */
    private static function wrap(string|array|null $type, mixed $value): mixed
    {
        if ($type === null || !is_array($value)) {
            return $value;
        }
        if (is_array($type)) {
            return array_map(
                static fn (mixed $item): mixed => is_array($item) ? $type[0]::from($item) : $item,
                $value,
            );
        }
        return $type::from($value);
    }

    public function __get(string $name): mixed
    {
        return $this->values[$name] ?? null;
    }

    public function __isset(string $name): bool
    {
        return isset($this->values[$name]);
    }

    public function __set(string $name, mixed $value): void
    {
        throw new \LogicException('Objects of the API are read-only: send a request to change one.');
    }

    public function offsetExists(mixed $offset): bool
    {
        return isset($this->values[$offset]);
    }

    public function offsetGet(mixed $offset): mixed
    {
        return $this->values[$offset] ?? null;
    }

    public function offsetSet(mixed $offset, mixed $value): void
    {
        throw new \LogicException('Objects of the API are read-only: send a request to change one.');
    }

    public function offsetUnset(mixed $offset): void
    {
        throw new \LogicException('Objects of the API are read-only: send a request to change one.');
    }

    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->values);
    }

    /** @return array<string, mixed> the decoded JSON, as the service answered it */
    public function toArray(): array
    {
        return $this->raw;
    }

    /** @return array<string, mixed> */
    public function jsonSerialize(): array
    {
        return $this->raw;
    }
}
