// Builds the page's parts from the API's JSON; text goes in through textContent only.

export function element(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
        if (key === 'className') {
            node.className = value;
        } else if (key.startsWith('on')) {
            node.addEventListener(key.substring(2), value);
        } else {
            node.setAttribute(key, value);
        }
    }
    for (const child of children) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child ?? '')));
    }
    return node;
}

/** A stable hue per owner id, so an owner keeps its colour across refreshes and pages. */
export function ownerHue(owner) {
    let hash = 0;
    for (const char of owner) {
        hash = (hash * 31 + char.codePointAt(0)) >>> 0;
    }
    // Spread by the golden angle: ids a character apart (node-1, node-2) get hues far apart.
    return Math.round((hash % 360) * 137.508) % 360;
}

export function partitionColour(partition, maxPending) {
    if (!partition.owner) {
        return '';
    }
    // lighter when empty, darker with more NEW records, on a log scale so a few records still show
    const share = maxPending > 0 ? Math.log1p(partition.pending) / Math.log1p(maxPending) : 0;
    return `hsl(${ownerHue(partition.owner)} 65% ${Math.round(82 - share * 45)}%)`;
}

/** A FAILED record's attempts: its retry count stays at the retries before the last attempt. */
export function attempts(record) {
    return record.retryCount === null || record.retryCount === undefined ? '' : record.retryCount + 1;
}

export function seconds(value) {
    return value === null || value === undefined ? '' : `${value.toFixed(1)} s`;
}

export function renderCounts(container, records) {
    container.replaceChildren(...Object.entries(records).map(([status, count]) =>
        element('div', { 'data-status': status }, element('dt', {}, status), element('dd', {}, count))));
}

/** Partitions an instance claimed in the last hour, from the history; blank until the history is read. */
function claimsCell(epochChanges, id) {
    return element('td', { 'data-field': 'epoch-changes' }, epochChanges ? (epochChanges[id] ?? 0) : '');
}

export function renderInstances(tbody, overview, epochChanges) {
    const rows = overview.instances.map(({ instance, late }) => element('tr',
        { 'data-instance-id': instance.id, 'data-state': late ? 'late' : 'live', className: late ? 'late' : '' },
        element('td', {}, instance.id), element('td', {}, `${instance.hostname}:${instance.port}`),
        element('td', {}, instance.version ?? ''), element('td', {}, (instance.handlerIds ?? ['(any)']).join(', ')),
        element('td', {}, instance.status),
        element('td', {}, seconds(instance.heartbeatAgeSeconds)), element('td', {}, instance.ownedPartitions),
        claimsCell(epochChanges, instance.id), element('td', {}, late ? 'late heartbeat' : 'live')));
    const departed = overview.departed.map((instance) => element('tr',
        { 'data-instance-id': instance.id, 'data-state': 'departed', className: 'departed' },
        element('td', {}, instance.id),
        element('td', {}, instance.hostname ? `${instance.hostname}:${instance.port}` : ''),
        element('td', {}, instance.version ?? ''), element('td', {}), element('td', {}), element('td', {}),
        element('td', {}, instance.ownedPartitions), claimsCell(epochChanges, instance.id),
        element('td', {}, departedState(instance))));
    tbody.replaceChildren(...rows, ...departed);
}

/** An instance seen live within the hour says when it last heartbeated; an owner never seen, only that it is gone. */
function departedState(instance) {
    const taken = instance.ownedPartitions > 0 ? '; partitions not taken over yet' : '';
    return instance.lastHeartbeat ? `departed: last heartbeat at ${instance.lastHeartbeat}${taken}`
        : `departed (not live${taken})`;
}

export function renderGrid(grid, legend, partitions, selected, onSelect) {
    const maxPending = Math.max(0, ...partitions.map((partition) => partition.pending));
    grid.replaceChildren(...partitions.map((partition) => {
        const cell = element('button', {
            type: 'button',
            'data-partition': partition.partition,
            'data-owner': partition.owner ?? '',
            'data-owner-live': String(partition.ownerLive),
            'data-pending': partition.pending,
            title: `partition ${partition.partition}: ${partition.owner ?? 'no owner'}, ${partition.pending} NEW`,
            onclick: () => onSelect(partition.partition),
        });
        cell.style.backgroundColor = partitionColour(partition, maxPending);
        if (partition.partition === selected) {
            cell.classList.add('selected');
        }
        return cell;
    }));
    const owners = [...new Set(partitions.map((partition) => partition.owner).filter(Boolean))].sort();
    legend.replaceChildren(...owners.map((owner) => {
        const swatch = element('span');
        swatch.style.backgroundColor = `hsl(${ownerHue(owner)} 65% 60%)`;
        return element('li', { 'data-owner': owner }, swatch, owner);
    }));
}

/** An age in seconds as an operator reads it: seconds, minutes, hours or days. */
export function age(secondsOld) {
    if (secondsOld === null || secondsOld === undefined) {
        return '';
    }
    const units = [[86400, 'd'], [3600, 'h'], [60, 'min']];
    const [size, unit] = units.find(([limit]) => secondsOld >= limit) ?? [1, 's'];
    return `${(secondsOld / size).toFixed(size === 1 ? 0 : 1)} ${unit}`;
}

function oldest(createdAt, ageSeconds) {
    return createdAt ? `${age(ageSeconds)} old (created ${createdAt})` : 'none';
}

/**
 * The clicked partition: owner, epoch and NEW records from the overview; its records counted in the database when
 * it was clicked ({@code detail}, null until that answer comes, or when it failed).
 */
export function renderPartitionDetail(aside, partition, detail) {
    aside.hidden = false;
    aside.setAttribute('data-partition', partition.partition);
    const field = (label, name, value) => [element('dt', {}, label), element('dd', { 'data-field': name }, value)];
    const counted = detail && detail.partition === partition.partition ? [
        ...field('FAILED records', 'failed', detail.failed),
        ...field('NEW, not yet due (back-off, delay or deferral)', 'not-yet-due', detail.notYetDue),
        ...field('NEW, deferred (put off for want of their handler)', 'deferred', detail.deferred),
        ...field('Oldest NEW record', 'oldest-new', oldest(detail.oldestNewCreatedAt, detail.oldestNewAgeSeconds)),
        ...field('Oldest FAILED record', 'oldest-failed',
            oldest(detail.oldestFailedCreatedAt, detail.oldestFailedAgeSeconds)),
        ...field('Counted at', 'counted-at', `${detail.countedAt} (click again to count anew)`),
    ] : [];
    aside.replaceChildren(element('h3', {}, `Partition ${partition.partition}`), element('dl', {},
        ...field('Owner', 'owner', partition.owner ?? 'none'),
        ...field('Owner live', 'owner-live', partition.ownerLive ? 'yes' : 'no'),
        ...field('Epoch', 'epoch', partition.epoch ?? ''),
        ...field('NEW records', 'pending', partition.pending),
        ...counted));
}

export function renderFailedRecords(tbody, records, operationsAllowed, actions) {
    tbody.replaceChildren(...records.map(({ record, newBehind }) => {
        const buttons = operationsAllowed && record.id ? ['retry', 'skip', 'delete'].map((action) =>
            element('button', { type: 'button', className: 'operation', 'data-action': action,
                onclick: (event) => { event.stopPropagation(); actions.act(record, action); } }, action)) : [];
        return element('tr', { 'data-record-id': record.id ?? '', onclick: () => actions.show(record.id) },
            element('td', {}, record.id ?? ''), element('td', {}, record.aggregateId ?? ''),
            element('td', {}, record.eventType ?? ''), element('td', {}, record.handlerId ?? ''),
            element('td', {}, attempts(record)), element('td', { 'data-field': 'new-behind' }, newBehind ?? ''),
            element('td', {}, record.createdAt ?? ''),
            element('td', { className: 'error' }, record.lastError ?? ''), element('td', {}, ...buttons));
    }));
}

export function renderRecordDetail(aside, view) {
    aside.hidden = false;
    aside.setAttribute('data-record-id', view.record.id ?? '');
    const fields = Object.entries(view.record).flatMap(([key, value]) =>
        [element('dt', {}, key), element('dd', { 'data-field': key }, value ?? '')]);
    aside.replaceChildren(element('h3', {}, `Record ${view.record.id ?? ''}`), element('dl', {}, ...fields),
        element('h4', {}, 'Headers'), element('pre', { id: 'record-headers' }, JSON.stringify(view.headers, null, 2)),
        element('h4', {}, 'Payload'), element('pre', { id: 'record-payload' }, view.payload ?? '(not readable)'));
}

const SVG = 'http://www.w3.org/2000/svg';
const HOUR_MILLIS = 3600 * 1000;
/** The chart's box in the SVG's own units (its viewBox), and the plot inside it. */
const CHART = { width: 640, height: 200, left: 52, right: 12, top: 12, bottom: 26 };

function svg(tag, attributes = {}, text = undefined) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) {
        node.setAttribute(key, value);
    }
    if (text !== undefined) {
        node.textContent = String(text);
    }
    return node;
}

/** The smallest of 1, 2 or 5 times a power of ten that is at least the value: a round top for the y axis. */
export function roundCeiling(value) {
    if (value <= 1) {
        return 1;
    }
    const power = 10 ** Math.floor(Math.log10(value));
    return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value);
}

/**
 * NEW and FAILED records over the hour before the newest sample, as two lines with labelled axes. Each path carries
 * the number of its points and its last value, for tests and for anyone reading the DOM.
 */
export function renderBacklogChart(chart, samples) {
    const plotWidth = CHART.width - CHART.left - CHART.right;
    const plotHeight = CHART.height - CHART.top - CHART.bottom;
    const end = samples.length ? Date.parse(samples[samples.length - 1].time) : Date.now();
    const start = end - HOUR_MILLIS;
    const top = roundCeiling(Math.max(0, ...samples.map((sample) => Math.max(sample.pending, sample.failed))));
    const x = (time) => CHART.left + ((time - start) / HOUR_MILLIS) * plotWidth;
    const y = (value) => CHART.top + plotHeight * (1 - value / top);
    const parts = [];
    for (const value of [0, top / 2, top]) {
        parts.push(svg('line', { class: value ? 'grid' : 'axis', x1: CHART.left, x2: CHART.left + plotWidth,
            y1: y(value), y2: y(value) }));
        parts.push(svg('text', { x: CHART.left - 6, y: y(value) + 4, 'text-anchor': 'end' },
            Number.isInteger(value) ? value : value.toFixed(1)));
    }
    parts.push(svg('line', { class: 'axis', x1: CHART.left, x2: CHART.left, y1: CHART.top, y2: y(0) }));
    for (const minutesAgo of [60, 45, 30, 15, 0]) {
        const at = x(end - minutesAgo * 60 * 1000);
        // the time axis ends at the newest sample, which is not now when sampling stalls (a database outage)
        parts.push(svg('text', { x: at, y: CHART.height - 8, 'text-anchor': minutesAgo ? 'middle' : 'end' },
            minutesAgo ? `-${minutesAgo} min` : 'latest'));
    }
    const middle = CHART.top + plotHeight / 2;
    parts.push(svg('text', { x: 12, y: middle, 'text-anchor': 'middle', transform: `rotate(-90 12 ${middle})` },
        'records'));
    for (const [series, label, offset] of [['pending', 'NEW', 0], ['failed', 'FAILED', 60]]) {
        const points = samples.map((sample) => `${x(Date.parse(sample.time)).toFixed(1)} ${y(sample[series])
            .toFixed(1)}`);
        const name = series === 'pending' ? 'new' : 'failed';
        parts.push(svg('path', { class: `series-${name}`, 'data-series': name, 'data-points': points.length,
            'data-last': samples.length ? samples[samples.length - 1][series] : '',
            d: points.length ? `M ${points.join(' L ')}` : '' }));
        parts.push(svg('text', { class: `series-${name}`, x: CHART.left + 8 + offset, y: CHART.top + 10 }, label));
    }
    chart.replaceChildren(...parts);
}

export function drainRateText(drainRate) {
    if (drainRate.completedPerSecond === null || drainRate.completedPerSecond === undefined) {
        return `unknown: ${drainRate.unknownBecause}`;
    }
    return `${drainRate.completedPerSecond.toFixed(2)} records/s completed, over the last `
        + `${Math.round(drainRate.overSeconds)} s`;
}
