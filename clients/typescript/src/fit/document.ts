import { shapeDocument } from './outline.ts';
import type { FitOptions, Fitted } from './types.ts';
import { fitShape } from './views.ts';

/**
 * Fits a text document (Markdown by headings, TypeScript/JavaScript/Python by definitions, any
 * other text by runs of lines) to a view and budget. No view, budget or query: the whole text and
 * `fit: null`.
 */
export const fitDocument = (text: string, options: FitOptions = {}): Fitted =>
  fitShape(shapeDocument(text, options.name ?? options.head), options, 'the document');
