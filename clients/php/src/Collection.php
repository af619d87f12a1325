<?php

declare(strict_types=1);

namespace Congopay;

/**
 * A list request: `foreach` over it walks every item of every page, fetched as they are needed;
 * page() is the first page alone. Nothing is fetched until one or the other.
 *
 * @template T of ApiObject
 * @implements \IteratorAggregate<int, T>
 */
final class Collection implements \IteratorAggregate
{
    /**
     * @param \Closure(array<string, mixed>): ApiObject $fetch one page of the list
     * @param array<string, mixed> $query
     * @param bool $keyset pages follow the last item's id (else the offset)
     */
    public function __construct(
        private readonly \Closure $fetch,
        private readonly array $query,
        private readonly bool $keyset,
    ) {
    }

    /** The first page: its data, has_more, limit and offset. */
    public function page(): ApiObject
    {
        return ($this->fetch)($this->query);
    }

    /** @return \Generator<int, T> */
    public function getIterator(): \Generator
    {
        $query = $this->query;
        for (;;) {
            $page = ($this->fetch)($query);
            $data = $page['data'] ?? [];
            foreach ($data as $item) {
                yield $item;
            }
            if (!$page['has_more'] || $data === []) {
                return;
            }
            if ($this->keyset) {
                // The next page starts after the last item seen: what arrives meanwhile is
                // neither repeated nor skipped.
                unset($query['offset']);
                $query['starting_after'] = $data[count($data) - 1]['id'];
            } else {
                $query['offset'] = (int) $page['offset'] + count($data);
            }
        }
    }
}
