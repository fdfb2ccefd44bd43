// The paper ledger's lists: accounts, positions, orders, fills and cycles, each paged.
import { defineTradingOperation } from '../operation.js'
import { accountPage, accountQuery, cyclePage, fillPage, ledgerQuery, orderPage, positionPage } from '../readback-schemas.js'
import { PAGING } from './paging-note.js'

const FILTERED = `${PAGING} Filter by \`account\` and \`dataset\`.`

export const ledgerOperations = [
  defineTradingOperation({
    name: 'trading.ledger.accounts',
    method: 'GET',
    group: 'v11',
    path: '/ledger/accounts',
    summary: 'Paper accounts: currency, initial and current cash',
    description: PAGING,
    query: accountQuery,
    output: accountPage,
    handler: (input, { readback }) => readback.accounts(input),
  }),
  defineTradingOperation({
    name: 'trading.ledger.positions',
    method: 'GET',
    group: 'v11',
    path: '/ledger/positions',
    summary: 'Paper positions per account and dataset (signed quantity, average price, realised P&L)',
    description: FILTERED,
    query: ledgerQuery,
    output: positionPage,
    handler: (input, { readback }) => readback.positions(input),
  }),
  defineTradingOperation({
    name: 'trading.ledger.orders',
    method: 'GET',
    group: 'v11',
    path: '/ledger/orders',
    summary: 'Paper orders, newest first',
    description: FILTERED,
    query: ledgerQuery,
    output: orderPage,
    handler: (input, { readback }) => readback.orders(input),
  }),
  defineTradingOperation({
    name: 'trading.ledger.fills',
    method: 'GET',
    group: 'v11',
    path: '/ledger/fills',
    summary: 'Paper fills (price, commission, slippage, bar), newest first',
    description: FILTERED,
    query: ledgerQuery,
    output: fillPage,
    handler: (input, { readback }) => readback.fills(input),
  }),
  defineTradingOperation({
    name: 'trading.ledger.cycles',
    method: 'GET',
    group: 'v11',
    path: '/ledger/cycles',
    summary: 'Full cycles (signal → order or no change), newest first',
    description: FILTERED,
    query: ledgerQuery,
    output: cyclePage,
    handler: (input, { readback }) => readback.cycles(input),
  }),
]
