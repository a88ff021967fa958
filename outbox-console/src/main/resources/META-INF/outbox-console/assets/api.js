// The console's JSON API; POSTs carry Spring Security's CSRF token when the page was given one.
const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? '';

export const base = meta('outbox-console-base');

function query(params) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
        if (value !== undefined && value !== null && value !== '') {
            search.set(key, value);
        }
    }
    const text = search.toString();
    return text ? `?${text}` : '';
}

async function answer(response) {
    const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
    if (!response.ok) {
        throw new Error(body.error ?? `HTTP ${response.status}`);
    }
    return body;
}

export async function get(path, params = {}) {
    return answer(await fetch(`${base}/api/${path}${query(params)}`, { headers: { Accept: 'application/json' } }));
}

export async function post(path, params = {}) {
    const headers = { Accept: 'application/json' };
    const csrfHeader = meta('outbox-console-csrf-header');
    if (csrfHeader) {
        headers[csrfHeader] = meta('outbox-console-csrf-token');
    }
    return answer(await fetch(`${base}/api/${path}${query(params)}`, { method: 'POST', headers }));
}
