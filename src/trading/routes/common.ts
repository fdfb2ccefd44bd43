// Under a trading version prefix a 404 names the platform and points at its inventory of routes.
import { problemNotFound } from '../../plugins/problem.js'

export const tradingNotFound = problemNotFound('on the trading platform', '/api/v11/system/inventory')
