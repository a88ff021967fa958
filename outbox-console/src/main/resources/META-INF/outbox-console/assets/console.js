// The page's state: the outbox, the filters and the page's cursor live in the URL, so a reload shows the same view.
import { get, post } from './api.js';
import { drainRateText, renderBacklogChart, renderCounts, renderFailedRecords, renderGrid, renderInstances,
    renderPartitionDetail, renderRecordDetail } from './render.js';

/** The overview comes from the monitor's cached snapshot: polling it costs the database nothing. */
const POLL_MILLIS = 3000;
/** What narrows the FAILED records; the page's order, size and cursor are not part of what a bulk action means. */
const CRITERIA = ['handlerId', 'eventType', 'aggregateId', 'errorContains', 'failedWithin', 'createdWithin'];
const FILTERS = [...CRITERIA, 'order', 'limit'];
const DEFAULTS = { order: 'oldest', limit: '100' };
const BULK = { 'retry-all': 'retried', 'skip-all': 'skipped', 'delete-all': 'deleted' };
const $ = (id) => document.getElementById(id);

const state = {
    overview: null,
    failed: [],
    nextCursor: null,
    selectedPartition: null,
    // the clicked partition's records as the database counted them on the click; null until that answer comes
    partitionDetail: null,
    detailWanted: false,
    selectedRecord: null,
    // the FAILED records are read again only when the snapshot changed (at most once per monitor refresh)
    failedReadAt: null,
};

function params() {
    return new URLSearchParams(window.location.search);
}

function outbox() {
    return params().get('outbox') ?? '';
}

function filters() {
    const search = params();
    return Object.fromEntries(FILTERS.map((name) => [name, search.get(name) ?? '']));
}

function criteria() {
    const search = params();
    return Object.fromEntries(CRITERIA.map((name) => [name, search.get(name) ?? '']));
}

function setUrl(values) {
    const search = params();
    for (const [key, value] of Object.entries(values)) {
        if (value === '' || value === null || value === undefined) {
            search.delete(key);
        } else {
            search.set(key, value);
        }
    }
    const text = search.toString();
    window.history.replaceState(null, '', text ? `?${text}` : window.location.pathname);
}

function say(text) {
    $('message').textContent = text;
}

async function refreshOverview() {
    // the history is kept in memory from the monitor's snapshots: reading it costs the database nothing either
    const [overview, history] = await Promise.all([get('overview', { outbox: outbox() }),
        get('history', { outbox: outbox() })]);
    state.overview = overview;
    renderBacklogChart($('backlog-chart'), history.samples);
    $('drain-rate').textContent = drainRateText(history.drainRate);
    $('history-samples').textContent = `${history.samples.length}`
        + (history.samples.length ? ` since ${history.samples[0].time}` : '');
    document.body.classList.toggle('read-only', !overview.operations.allowed);
    $('operations-state').textContent = overview.operations.allowed ? 'operations enabled'
        : `read-only: ${overview.operations.refusal}`;
    const freshness = $('freshness');
    freshness.textContent = overview.takenAt ? `figures of ${overview.takenAt}${overview.stale ? ' (stale)' : ''}`
        : 'no figures yet';
    freshness.className = overview.stale ? 'stale' : '';
    showOutboxChoice(overview);
    renderCounts($('record-counts'), overview.records);
    renderInstances($('instances').tBodies[0], overview, history.epochChanges);
    renderGrid($('partition-grid'), $('partition-legend'), overview.partitions, state.selectedPartition,
        selectPartition);
    if (state.selectedPartition !== null && state.detailWanted) {
        state.detailWanted = false; // a partition named in the URL: counted once, as a click would
        selectPartition(state.selectedPartition);
    } else if (state.selectedPartition !== null) {
        renderPartitionDetail($('partition-detail'), overview.partitions[state.selectedPartition],
            state.partitionDetail);
    }
    const snapshotKey = `${overview.takenAt}/${overview.records.failed}`;
    if (snapshotKey !== state.failedReadAt) {
        state.failedReadAt = snapshotKey;
        await refreshFailed();
    }
}

function showOutboxChoice(overview) {
    const select = $('outbox-select');
    $('outbox-choice').hidden = overview.outboxes.length === 0;
    const names = ['', ...overview.outboxes];
    if (select.options.length !== names.length) {
        select.replaceChildren(...names.map((name) => new Option(name || 'default', name)));
    }
    select.value = overview.outbox ?? '';
}

async function refreshFailed() {
    const after = params().get('after') ?? '';
    const answer = await get('failed-records', { outbox: outbox(), ...filters(), after });
    state.failed = answer.records;
    state.nextCursor = answer.nextCursor;
    renderFailedRecords($('failed-records').tBodies[0], answer.records, state.overview?.operations.allowed ?? false,
        { act, show: showRecord });
    $('failed-summary').textContent = `${answer.records.length} FAILED record(s) on this page, ${answer.order} first`
        + (after ? ' (not the first page)' : '') + (answer.searchCut
            ? '; the page stopped looking after the next 10,000 FAILED records, and the next page looks on'
            : answer.nextCursor ? '; there may be more on the next page' : '');
    $('failed-next').disabled = !answer.nextCursor;
    $('failed-first').disabled = !after;
    if (state.selectedRecord) {
        showRecord(state.selectedRecord);
    }
}

function page(after) {
    setUrl({ after, record: '' });
    state.selectedRecord = null;
    $('record-detail').hidden = true;
    refreshFailed().catch((error) => say(error.message));
}

/** Shows the partition at once from the overview, then its records as the database counts them now. */
async function selectPartition(partition) {
    state.selectedPartition = partition;
    state.partitionDetail = null;
    setUrl({ partition });
    renderGrid($('partition-grid'), $('partition-legend'), state.overview.partitions, partition, selectPartition);
    renderPartitionDetail($('partition-detail'), state.overview.partitions[partition], null);
    try {
        const detail = await get(`partitions/${partition}`, { outbox: outbox() });
        if (state.selectedPartition === partition) {
            state.partitionDetail = detail;
            renderPartitionDetail($('partition-detail'), state.overview.partitions[partition], detail);
        }
    } catch (error) {
        say(`could not count the records of partition ${partition}: ${error.message}`);
    }
}

function showRecord(recordId) {
    const view = state.failed.find((candidate) => candidate.record.id === recordId);
    state.selectedRecord = view ? recordId : null;
    setUrl({ record: state.selectedRecord });
    $('record-detail').hidden = !view;
    if (view) {
        renderRecordDetail($('record-detail'), view);
    }
}

function confirmed(text) {
    const dialog = $('confirm');
    $('confirm-text').textContent = text;
    dialog.returnValue = ''; // Escape leaves the last answer in place
    return new Promise((resolve) => {
        dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
        dialog.showModal();
    });
}

async function act(record, action) {
    if (!await confirmed(`${action} record ${record.id} (aggregate ${record.aggregateId ?? '?'})? 1 record.`)) {
        return;
    }
    await report(post(`records/${encodeURIComponent(record.id)}/${action}`, { outbox: outbox() }));
}

/**
 * Asks the database how many records the action would change now, and acts only when the operator confirms. The
 * action gets the time bounds the count was taken with, not "failed within" or "created within" again: an hour's
 * window read at the confirmation would no longer be the one counted.
 */
async function actOnAll(action) {
    const filter = criteria();
    const described = Object.entries(filter).filter(([, value]) => value).map(([key, value]) => `${key}=${value}`);
    let counted;
    try {
        counted = await get('failed-records/count', { outbox: outbox(), ...filter });
    } catch (error) {
        say(`could not count the matching records: ${error.message}`);
        return;
    }
    const since = [counted.lastAttemptDueFrom ? `last attempt due since ${counted.lastAttemptDueFrom}` : '',
        counted.createdFrom ? `created since ${counted.createdFrom}` : ''].filter(Boolean).join(', ');
    const text = `${counted.count} record(s) will be ${BULK[action]}: every FAILED record matching `
        + `${described.join(', ') || 'no filter (all of them)'}${since ? ` (${since})` : ''}, counted in the `
        + 'database now.';
    if (await confirmed(text)) {
        await report(post(action, { outbox: outbox(), ...filter, failedWithin: '', createdWithin: '',
            lastAttemptDueFrom: counted.lastAttemptDueFrom, lastAttemptDueBefore: counted.lastAttemptDueBefore,
            createdFrom: counted.createdFrom, createdBefore: counted.createdBefore }));
    }
}

async function report(operation) {
    try {
        const result = await operation;
        say(`${result.action}: ${result.records} record(s) changed`);
    } catch (error) {
        say(`refused: ${error.message}`);
    }
    state.failedReadAt = null;
    await refreshFailed();
}

function bindFilters() {
    const form = $('failed-filter');
    const current = filters();
    for (const name of FILTERS) {
        if (current[name]) {
            form.elements[name].value = current[name];
        }
    }
    form.addEventListener('submit', (event) => {
        event.preventDefault();
        setUrl({ ...Object.fromEntries(FILTERS.map((name) => [name, form.elements[name].value.trim()])),
            after: '' });
        refreshFailed().catch((error) => say(error.message));
    });
    $('filter-clear').addEventListener('click', () => {
        FILTERS.forEach((name) => { form.elements[name].value = DEFAULTS[name] ?? ''; });
        setUrl({ ...Object.fromEntries(FILTERS.map((name) => [name, ''])), after: '' });
        refreshFailed().catch((error) => say(error.message));
    });
    for (const action of Object.keys(BULK)) {
        $(action).addEventListener('click', () => actOnAll(action));
    }
    $('failed-next').addEventListener('click', () => page(state.nextCursor));
    $('failed-first').addEventListener('click', () => page(''));
    $('outbox-select').addEventListener('change', (event) => {
        setUrl({ outbox: event.target.value, partition: '', record: '', after: '' });
        state.selectedPartition = null;
        state.partitionDetail = null;
        state.selectedRecord = null;
        state.failedReadAt = null;
        $('partition-detail').hidden = true;
        $('record-detail').hidden = true;
        refreshOverview().catch((error) => say(error.message));
    });
}

async function poll() {
    try {
        await refreshOverview();
    } catch (error) {
        say(`could not refresh: ${error.message}`);
    }
    window.setTimeout(poll, POLL_MILLIS);
}

const initial = params();
const partitionInUrl = Number.parseInt(initial.get('partition') ?? '', 10);
state.selectedPartition = partitionInUrl >= 0 && partitionInUrl < 256 ? partitionInUrl : null;
state.detailWanted = state.selectedPartition !== null;
state.selectedRecord = initial.get('record');
bindFilters();
poll();
