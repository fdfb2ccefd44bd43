// The paging rules every list states in its description (src/http/paging.ts implements them).
export const PAGING = 'Paged: `limit` (1–500, default 50) and `cursor` (the `next_cursor` of the previous page); `next_cursor` is null on the last page. ' +
  'Pages are keyset positions, so rows added while you page never cause duplicates or gaps. A bad cursor is refused with 400, a limit over 500 with 422.'
