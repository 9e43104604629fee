import { byName } from "./by-name.js";
import { canonical } from "./canonical.js";
import { envelope } from "./envelope.js";
import { flat } from "./flat.js";
import type { Shape, ShapeName } from "./shape.js";

export { SHAPE_NAMES, type Directory, type Shape, type ShapeName, type WireAnswer } from "./shape.js";

const SHAPES: Readonly<Record<ShapeName, Shape>> = { canonical, envelope, flat, "by-name": byName };

export const shapeNamed = (name: ShapeName): Shape => SHAPES[name];
