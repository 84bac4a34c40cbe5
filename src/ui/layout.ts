/**
 * Lays a definition's graph out with ELK (elkjs, layered, top to bottom): composite 1.0 tasks
 * are boxes holding their lists, edges cross them (hierarchy handled by ELK). Returns absolute
 * coordinates, so the page only draws.
 */
import type { Graph, GraphNode } from './graph';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const ELK = require('elkjs/lib/elk.bundled.js');

export interface PlacedNode extends GraphNode {
  x: number;
  y: number;
  width: number;
  height: number;
  container: boolean;
}

export interface PlacedEdge {
  id: string;
  from: string;
  to: string;
  points: [number, number][];
  label?: { text: string; x: number; y: number; width: number; height: number };
}

export interface LaidOutGraph extends Omit<Graph, 'nodes' | 'edges'> {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

interface ElkNode {
  id: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  children?: ElkNode[];
  edges?: ElkEdge[];
  labels?: { text: string; width?: number; height?: number; x?: number; y?: number }[];
  layoutOptions?: Record<string, string>;
}

interface ElkEdge {
  id: string;
  sources: string[];
  targets: string[];
  container?: string;
  labels?: { text: string; width: number; height: number; x?: number; y?: number }[];
  sections?: { startPoint: { x: number; y: number }; endPoint: { x: number; y: number }; bendPoints?: { x: number; y: number }[] }[];
}

/** Text width estimate for the page's 13px sans-serif (the page clips nothing: boxes are generous). */
const textWidth = (s: string, px = 7.4) => Math.ceil(s.length * px);
/** Space for a container's title above its contents. */
const HEADER = 26;

function size(n: GraphNode): { width: number; height: number } {
  if (n.type === 'start' || n.type === 'end') return { width: 56, height: 32 };
  const title = textWidth(n.label, 7.8);
  const sub = textWidth(`${n.type}${n.detail ? ` ${n.detail}` : ''}`, 6.6);
  return { width: Math.min(280, Math.max(120, title, sub, textWidth('×99 · 59m 59s', 6.6)) + 24), height: 58 };
}

export async function layout(graph: Graph): Promise<LaidOutGraph> {
  const elk = new ELK();
  const children = new Map<string | undefined, GraphNode[]>();
  for (const n of graph.nodes) children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
  const build = (n: GraphNode): ElkNode => {
    const kids = children.get(n.id);
    if (!kids?.length) return { id: n.id, ...size(n) };
    return {
      id: n.id,
      labels: [{ text: n.label, width: textWidth(n.label) + 90, height: 16 }],
      layoutOptions: { 'elk.padding': `[top=${HEADER + 12},left=12,bottom=12,right=12]`, 'elk.nodeLabels.placement': 'INSIDE V_TOP H_LEFT' },
      children: kids.map(build),
    };
  };
  const root: ElkNode = {
    id: '__root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeLabel': '4',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.padding': '[top=16,left=16,bottom=16,right=16]',
    },
    children: (children.get(undefined) ?? []).map(build),
    edges: graph.edges.map((e) => ({
      id: e.id,
      sources: [e.from],
      targets: [e.to],
      ...(e.label ? { labels: [{ text: e.label, width: textWidth(e.label, 6.4) + 6, height: 14 }] } : {}),
    })),
  };
  const out: ElkNode = await elk.layout(root);

  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const offset = new Map<string, { x: number; y: number }>([['__root', { x: 0, y: 0 }]]);
  const nodes: PlacedNode[] = [];
  const edges: ElkEdge[] = [...(out.edges ?? [])];
  const walk = (list: ElkNode[] | undefined, ox: number, oy: number) => {
    for (const c of list ?? []) {
      const x = ox + (c.x ?? 0);
      const y = oy + (c.y ?? 0);
      offset.set(c.id, { x, y });
      nodes.push({ ...byId.get(c.id)!, x, y, width: c.width ?? 0, height: c.height ?? 0, container: Boolean(c.children?.length) });
      edges.push(...(c.edges ?? []));
      walk(c.children, x, y);
    }
  };
  walk(out.children, 0, 0);
  const placed: PlacedEdge[] = edges.map((e) => {
    const o = offset.get(e.container ?? '__root') ?? { x: 0, y: 0 };
    const pts: [number, number][] = [];
    for (const s of e.sections ?? []) {
      pts.push([o.x + s.startPoint.x, o.y + s.startPoint.y]);
      for (const b of s.bendPoints ?? []) pts.push([o.x + b.x, o.y + b.y]);
      pts.push([o.x + s.endPoint.x, o.y + s.endPoint.y]);
    }
    const l = e.labels?.[0];
    return {
      id: e.id,
      from: e.sources[0],
      to: e.targets[0],
      points: pts,
      ...(l ? { label: { text: l.text, x: o.x + (l.x ?? 0), y: o.y + (l.y ?? 0), width: l.width, height: l.height } } : {}),
    };
  });
  placed.sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)));
  return { dsl: graph.dsl, id: graph.id, ...(graph.version ? { version: graph.version } : {}), title: graph.title, width: out.width ?? 0, height: out.height ?? 0, nodes, edges: placed };
}
