// @ts-check
// The typed client of the local API: openapi-fetch over the types that
// openapi-typescript generates from openapi.json (openapi.d.ts, `npm run
// gen:api`, checked current by scripts/test.sh). tsc checks every call made
// through it (`npm run typecheck:api`): a path, parameter, body field or
// answer field the document does not have fails CI, and the browser tests
// below make their API calls through it, so the document is proven by a
// real consumer, as a CRM page would use it.
import createClient from 'openapi-fetch';

/** @typedef {import('./openapi').paths} paths */
/** @typedef {import('./openapi').components['schemas']} schemas */

/**
 * @param {string} baseUrl the API's address, e.g. http://127.0.0.1:8377
 * @param {Record<string, string>} [headers] sent with every request (Authorization)
 * @returns {import('openapi-fetch').Client<paths>}
 */
export function apiClient(baseUrl, headers = {}) {
  return /** @type {import('openapi-fetch').Client<paths>} */ (/** @type {unknown} */ (createClient({ baseUrl, headers })));
}
