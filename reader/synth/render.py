"""OpenGL renderer of a dice scene (moderngl on Mesa llvmpipe through EGL, no display, no GPU).

Why not Blender Cycles: on the 2 shared cores it takes 8-20 s per tray frame; this takes a few
milliseconds per crop, which is what tens of thousands of varied training images need. Realism
comes from the shaders (per-pixel lighting from 1-3 warm-to-cool lights, a shadow map with soft
edges, contact darkening under each die, Fresnel rims, marbled/translucent/metallic bodies) and
from the camera effects applied afterwards in numpy (`camfx.py`).

The scene description (`scene.py`) is plain data; this module only draws it.
"""

from __future__ import annotations

import numpy as np

from reader.synth.mesh import rounded_mesh
from reader.synth.textures import label_atlas, surface_texture

VERT = """
#version 330
uniform mat4 model;      // object -> world
uniform mat4 viewproj;
uniform mat4 light_vp;
uniform float uv_scale;  // for surfaces: world mm -> texture repeats
in vec3 in_pos; in vec3 in_norm; in vec2 in_uv; in float in_onface;
out vec3 v_world; out vec3 v_norm; out vec2 v_uv; out float v_onface; out vec3 v_obj; out vec4 v_lpos;
void main() {
    vec4 w = model * vec4(in_pos, 1.0);
    v_world = w.xyz;
    v_norm = mat3(model) * in_norm;
    v_uv = in_uv;
    v_onface = in_onface;
    v_obj = in_pos;
    v_lpos = light_vp * w;
    gl_Position = viewproj * w;
}
"""

DEPTH_FRAG = """
#version 330
void main() { }
"""

FRAG = """
#version 330
uniform int mode;             // 0 surface (floor, wall), 1 die
uniform sampler2D albedo_tex; // surface texture (sRGB)
uniform sampler2D label_tex;  // die: R ink, G engraved rim
uniform sampler2D shadow_tex;
uniform float uv_scale;
uniform vec2 uv_offset;
uniform vec3 tint;
uniform vec3 eye;
uniform int n_lights;
uniform vec3 light_dir[3];    // toward the light
uniform vec3 light_pos[3];    // finite distance: highlights are spots, not whole faces
uniform vec3 light_col[3];
uniform vec3 sky; uniform vec3 ground;
uniform float shadow_strength;
uniform float shadow_soft;
uniform int n_blobs;
uniform vec4 blobs[16];       // x, y, radius, strength: contact darkening under dice
// die material
uniform vec3 body1; uniform vec3 body2; uniform vec3 ink; uniform vec3 rim_col;
uniform int body_kind;        // 0 opaque, 1 marbled, 2 translucent, 3 metallic, 4 speckled
uniform float marble_scale; uniform float gloss; uniform float spec_strength;
uniform float ink_gloss; uniform float seed;
uniform int pass_sel;         // 0 all, 1 only faces turned away (seen through a clear die), 2 only facing
uniform float opacity;        // < 1 for translucent dice, drawn blended after everything else
uniform float resin;          // 1: a clear resin die (scene.clear_resin): what lies behind it tinted, far faces' numerals seen
uniform int resin_pass;       // 1: the tint pass, the colour the body lets through (multiplies what is behind)
uniform float resin_density;  // how deeply the resin tints per unit of path through it
in vec3 v_world; in vec3 v_norm; in vec2 v_uv; in float v_onface; in vec3 v_obj; in vec4 v_lpos;
out vec4 frag;

float hash(vec3 p) { p = fract(p * 0.3183099 + 0.1); p *= 17.0;
    return fract(p.x * p.y * p.z * (p.x + p.y + p.z)); }
float vnoise(vec3 x) {
    vec3 i = floor(x); vec3 f = fract(x); f = f * f * (3.0 - 2.0 * f);
    return mix(mix(mix(hash(i + vec3(0,0,0)), hash(i + vec3(1,0,0)), f.x),
                   mix(hash(i + vec3(0,1,0)), hash(i + vec3(1,1,0)), f.x), f.y),
               mix(mix(hash(i + vec3(0,0,1)), hash(i + vec3(1,0,1)), f.x),
                   mix(hash(i + vec3(0,1,1)), hash(i + vec3(1,1,1)), f.x), f.y), f.z);
}
float fbm(vec3 p) { float a = 0.5, s = 0.0; for (int i = 0; i < 4; i++) { s += a * vnoise(p); p *= 2.03; a *= 0.5; } return s; }

float shadow_at(vec4 lpos, vec3 n, vec3 l) {
    vec3 p = lpos.xyz / lpos.w * 0.5 + 0.5;
    if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0) return 1.0;
    float bias = 0.0015 + 0.003 * (1.0 - max(dot(n, l), 0.0));
    float lit = 0.0;
    vec2 texel = shadow_soft / vec2(textureSize(shadow_tex, 0));
    for (int x = -1; x <= 1; x++) for (int y = -1; y <= 1; y++) {
        float d = texture(shadow_tex, p.xy + vec2(x, y) * texel * 1.6).r;
        lit += (p.z - bias > d) ? 0.0 : 1.0;
    }
    return lit / 9.0;
}

vec3 srgb2lin(vec3 c) { return pow(c, vec3(2.2)); }

vec3 env(vec3 r) {
    float t = clamp(r.z * 0.5 + 0.5, 0.0, 1.0);
    vec3 c = mix(ground, sky, smoothstep(0.3, 0.9, t));
    // a couple of bright windows/lamps to reflect
    c += 2.5 * sky * smoothstep(0.93, 0.99, dot(r, normalize(vec3(0.4, 0.3, 0.85))));
    c += 1.2 * sky * smoothstep(0.9, 0.98, dot(r, normalize(vec3(-0.6, -0.2, 0.75))));
    return c;
}

void main() {
    vec3 n = normalize(v_norm);
    vec3 v = normalize(eye - v_world);
    if (pass_sel == 1 && dot(n, v) > 0.0) discard;
    if (pass_sel == 2 && dot(n, v) < 0.0) discard;
    if (mode == 1 && resin_pass == 1) {
        // light from behind a clear die crosses the body: tinted the deeper the longer its path
        // (toward the die's outline, where a face is seen edge on); output in display gamma, since
        // the blend multiplies display values
        float path = 1.0 / max(dot(normalize(v_norm), v), 0.25);
        // the body's hue at full strength lets its own colour through almost whole, the others less
        float top = max(max(body1.r, body1.g), body1.b);
        vec3 hue = clamp(body1 / max(top, 0.05), 0.03, 1.0);
        vec3 trans = pow(hue, vec3(0.6 * resin_density * path)) * mix(0.55, 1.0, top);
        frag = vec4(pow(trans, vec3(1.0 / 2.2)), 1.0);
        return;
    }
    if (dot(n, v) < 0.0) n = -n;
    float alpha = 1.0;
    vec3 base; float spec_k; float shin; float wrap = 0.0; vec3 emiss = vec3(0.0);
    float metal = 0.0;
    vec3 q = vec3(0.0); vec2 lab = vec2(0.0);  // a die's body space and its label there (ink, rim)
    if (mode == 0) {
        vec3 an = abs(normalize(v_norm));  // walls: map the texture on the plane they face
        vec2 wuv = an.z > 0.5 ? v_world.xy : (an.x > 0.5 ? v_world.yz : v_world.xz);
        base = srgb2lin(texture(albedo_tex, wuv * uv_scale + uv_offset).rgb) * tint;
        spec_k = spec_strength; shin = gloss;
        for (int i = 0; i < n_blobs; i++) {
            float d = length(v_world.xy - blobs[i].xy) / blobs[i].z;
            base *= 1.0 - blobs[i].w * exp(-d * d * 2.2);
        }
    } else {
        q = v_obj * marble_scale + seed;
        base = body1;
        if (body_kind == 1) {
            float m = fbm(q + 1.7 * fbm(q * 1.3 + 3.1));
            float veins = smoothstep(0.35, 0.65, m);
            base = mix(body1, body2, veins);
        } else if (body_kind == 4) {
            float sp = step(0.80, vnoise(q * 9.0));
            base = mix(body1, body2, sp);
        }
        spec_k = spec_strength; shin = gloss;
        if (body_kind == 2) {
            float nv = max(dot(n, v), 0.0);
            // light travels through the body: brighter core, saturated darker rims
            base = body1 * (0.55 + 0.6 * nv) ;
            wrap = 0.6;
            emiss = body1 * 0.25 * fbm(q * 0.7);
            // glitter and cloudiness suspended in the resin
            float gl = step(0.93, vnoise(q * 14.0 + 7.0)) * step(0.5, seed - floor(seed));
            emiss += vec3(0.5) * gl * 0.6;
            base = mix(base, body2 * 0.9, 0.35 * smoothstep(0.45, 0.75, fbm(q * 1.5)));
        }
        if (body_kind == 3) { metal = 1.0; }
        if (body_kind != 2 && body_kind != 3) {
            // plastic is not a perfect diffuser: a touch darker and more saturated at grazing angles
            base *= mix(0.8, 1.0, pow(max(dot(n, v), 0.0), 0.5));
        }
        // a clear die's far faces are seen through its body, their numerals bent by it
        vec2 luv = v_uv;
        if (resin > 0.5 && pass_sel == 1) luv += 0.012 * (vec2(fbm(q * 2.5), fbm(q * 2.5 + 5.2)) - 0.5);
        lab = (v_onface > 0.5) ? texture(label_tex, luv).rg : vec2(0.0);
        base *= 1.0 - 0.65 * lab.g;                 // engraved rim darkens the body
        base = mix(base, ink, lab.r);
        alpha = mix(opacity, 1.0, lab.r * float(pass_sel != 1));
        emiss *= 1.0 - lab.r;
        if (lab.r > 0.5) { shin = mix(shin, 20.0, 1.0 - ink_gloss); metal *= 0.3; wrap = 0.0; }
    }
    vec3 amb = mix(ground, sky, n.z * 0.5 + 0.5);
    vec3 col = base * amb * (1.0 - metal * 0.7) + emiss;
    vec3 shine = vec3(0.0);  // the highlights and reflections in col: a clear die keeps them whole
    for (int i = 0; i < n_lights; i++) {
        vec3 l = normalize(light_pos[i] - v_world);
        float ndl = max((dot(n, l) + wrap) / (1.0 + wrap), 0.0);
        float sh = (i == 0) ? mix(1.0, shadow_at(v_lpos, n, l), shadow_strength) : 1.0;
        vec3 h = normalize(l + v);
        float sp = pow(max(dot(n, h), 0.0), shin) * spec_k * (shin + 8.0) / 25.1;
        vec3 spec_col = mix(vec3(1.0), base * 1.6, metal);
        col += light_col[i] * sh * (base * ndl * (1.0 - metal * 0.8) + spec_col * sp * step(0.0, dot(n, l)));
        // the specular term again, not factored out of col: factored, the rounding moved base renders
        // off their bytes (session 57 checked), and a seed must give the pixels it always gave
        shine += light_col[i] * sh * spec_col * sp * step(0.0, dot(n, l));
    }
    if (mode == 1) {
        float fr = pow(1.0 - max(dot(n, v), 0.0), 5.0);
        vec3 r = reflect(-v, n);
        float refl = mix(0.04, 1.0, fr) * min(1.0, spec_k * 5.0) * 0.5 + metal * 0.75;
        vec3 mirrored = env(r) * refl * mix(vec3(1.0), base * 1.8, metal);
        col += mirrored;
        shine += mirrored;
    }
    // soft shoulder instead of a hard clip: cameras roll highlights off
    col = max(col, vec3(0.0));
    col = mix(col, 1.0 - 0.2 * exp(-(col - 0.8) / 0.2), step(vec3(0.8), col));
    if (mode == 1 && resin > 0.5) {
        // premultiplied (the blend adds this over what is behind times 1 - alpha): a far face's
        // numeral seen through the body, tinted by it; the near face's body faint, its numerals,
        // glints and reflections whole
        float a;
        if (pass_sel == 1) {
            // the far faces from inside: tinted, and mirrors of the room where light meets them
            // steeply (streaks and blotches of light across the body, as in real resin)
            col = mix(col, col * body1 * 1.6, 1.0 - lab.r * 0.4);
            float glint = smoothstep(0.55, 0.8, fbm(q * 1.8 + 11.0));
            col += env(reflect(-v, n)) * body1 * 1.4 * glint;
            a = mix(0.1 + 0.3 * glint, 0.8, lab.r);
        } else {
            a = mix(opacity, 1.0, lab.r);
        }
        // the body scatters little light of its own: it is mostly seen by what crosses it (the tint
        // pass); its numerals and its highlights are whole
        vec3 lit = max(col - shine, vec3(0.0));
        vec3 own = pow(lit, vec3(1.0 / 2.2)) * a;
        frag = vec4(min(own + pow(shine, vec3(1.0 / 2.2)) * (1.0 - a), vec3(1.0)), a);
        return;
    }
    frag = vec4(pow(col, vec3(1.0 / 2.2)), alpha);
}
"""


def _quad(x0, y0, x1, y1, z=0.0) -> np.ndarray:
    p = [(x0, y0), (x1, y0), (x1, y1), (x0, y0), (x1, y1), (x0, y1)]
    return np.array([(x, y, z, 0, 0, 1, 0, 0, 0) for x, y in p], np.float32)


def _box(x0, y0, z0, x1, y1, z1) -> np.ndarray:
    """A closed axis-aligned box (tray wall) as triangles with outward normals."""
    c = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    faces = [((0, 1, 3, 2), (-1, 0, 0)), ((4, 6, 7, 5), (1, 0, 0)), ((0, 4, 5, 1), (0, -1, 0)),
             ((2, 3, 7, 6), (0, 1, 0)), ((0, 2, 6, 4), (0, 0, -1)), ((1, 5, 7, 3), (0, 0, 1))]
    rows = []
    for (a, b, cc, d), n in faces:
        for i in (a, b, cc, a, cc, d):
            rows.append((*c[i], *n, 0, 0, 0))
    return np.array(rows, np.float32)


class Renderer:
    """One offscreen GL context; `render(scene)` returns an RGB uint8 image."""

    def __init__(self, backend: str = "egl"):
        import moderngl

        self.mgl = moderngl
        try:
            self.ctx = moderngl.create_standalone_context(backend=backend)
        except Exception as exc:  # noqa: BLE001 - report the missing GL stack plainly
            raise RuntimeError(f"cannot open an EGL context for rendering ({exc}); install "
                               "libegl-mesa0 and libgl1-mesa-dri") from exc
        self.prog = self.ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        self.depth_prog = self.ctx.program(vertex_shader=VERT, fragment_shader=DEPTH_FRAG)
        self._vaos: dict = {}
        self._tex: dict = {}
        self._fbos: dict = {}
        self.shadow_size = 1024
        self.shadow_depth = self.ctx.depth_texture((self.shadow_size, self.shadow_size))
        self.shadow_depth.compare_func = ""
        self.shadow_fbo = self.ctx.framebuffer(depth_attachment=self.shadow_depth)

    # ---- caches --------------------------------------------------------------------------
    def _vao(self, key, data_fn):
        if key not in self._vaos:
            data = data_fn()
            vbo = self.ctx.buffer(np.ascontiguousarray(data, np.float32).tobytes())
            fmt = ("3f 3f 2f 1f", "in_pos", "in_norm", "in_uv", "in_onface")
            vao = self.ctx.vertex_array(self.prog, [(vbo, *fmt)])
            dvao = self.ctx.vertex_array(self.depth_prog, [(vbo, "3f 24x", "in_pos")])
            self._vaos[key] = (vao, dvao, vbo)
        return self._vaos[key][:2]

    def _texture(self, key, data_fn, components):
        if key not in self._tex:
            img = np.ascontiguousarray(data_fn())
            tex = self.ctx.texture((img.shape[1], img.shape[0]), components, img.tobytes())
            tex.build_mipmaps()
            tex.filter = (self.mgl.LINEAR_MIPMAP_LINEAR, self.mgl.LINEAR)
            tex.anisotropy = 4.0
            self._tex[key] = tex
        return self._tex[key]

    def _fbo(self, w, h, samples):
        key = (w, h, samples)
        if key not in self._fbos:
            ms = self.ctx.framebuffer(self.ctx.renderbuffer((w, h), 4, samples=samples),
                                      self.ctx.depth_renderbuffer((w, h), samples=samples))
            out = self.ctx.framebuffer(self.ctx.renderbuffer((w, h), 4))
            self._fbos[key] = (ms, out)
        return self._fbos[key]

    # ---- drawing -------------------------------------------------------------------------
    def _evict(self) -> None:
        """Bound the GL caches; only between scenes, never under objects in use."""
        if len(self._vaos) > 120:
            for k in list(self._vaos)[:40]:
                for obj in self._vaos.pop(k):
                    obj.release()
        if len(self._tex) > 160:
            for k in list(self._tex)[:40]:
                self._tex.pop(k).release()

    def _objects(self, scene):
        """(vao, depth_vao, model matrix, uniforms) for every object in the scene."""
        self._evict()
        objs = []
        s = scene
        fl = s["floor"]
        tex = self._texture(("surf", fl["tex_id"], fl["kind"]),
                            lambda: surface_texture(fl["tex_id"], fl["kind"])[0], 3)
        ext = fl["extent"]
        vao, dvao = self._vao(("quad", ext), lambda: _quad(-ext, -ext, ext, ext))
        objs.append((vao, dvao, np.eye(4), dict(mode=0, tex=tex, uv_scale=1.0 / fl["span"],
                                                 uv_offset=tuple(fl.get("uv_offset", (0, 0))),
                                                 tint=tuple(fl["tint"]), gloss=fl["gloss"],
                                                 spec_strength=fl["spec"])))
        for w in s.get("walls", []):
            tex = self._texture(("surf", w["tex_id"], w["kind"]),
                                lambda w=w: surface_texture(w["tex_id"], w["kind"])[0], 3)
            x0, y0, z0, x1, y1, z1 = w["box"]
            vao, dvao = self._vao(("box",), lambda: _box(0, 0, 0, 1, 1, 1))
            model = np.diag([x1 - x0, y1 - y0, z1 - z0, 1.0])
            model[:3, 3] = (x0, y0, z0)
            objs.append((vao, dvao, model, dict(mode=0, tex=tex, uv_scale=1.0 / w["span"],
                                                     uv_offset=(0.0, 0.0), tint=tuple(w["tint"]),
                                                     gloss=w["gloss"], spec_strength=w["spec"])))
        for d in s["dice"]:
            m = d["material"]
            bevel = round(float(d["bevel"]), 2)
            vao, dvao = self._vao(("die", d["die"], bevel), lambda d=d, b=bevel: rounded_mesh(d["die"], b))
            akey = tuple(m["atlas"])
            tex = self._texture(("atlas", akey), lambda k=akey: label_atlas(*k), 2)
            model = np.eye(4)
            model[:3, :3] = np.asarray(d["R"]) * d["scale"]
            model[:3, 3] = d["t"]
            objs.append((vao, dvao, model, dict(mode=1, label=tex, opacity=float(m.get("opacity", 1.0)),
                                                 resin=float(m.get("resin", 0.0)),
                                                 resin_density=float(m.get("resin_density", 1.0)),
                                                 **{k: m[k] for k in (
                "body1", "body2", "ink", "body_kind", "marble_scale", "gloss", "spec_strength",
                "ink_gloss", "seed")})))
        return objs

    def _set(self, name, value):
        if name in self.prog:
            self.prog[name].value = value

    def render(self, scene: dict) -> np.ndarray:
        cam = scene["camera"]
        w, h, ss = cam["width"], cam["height"], cam.get("supersample", 1)
        W, H = w * ss, h * ss
        objs = self._objects(scene)
        ctx = self.ctx
        ctx.enable(self.mgl.DEPTH_TEST)
        ctx.disable(self.mgl.CULL_FACE)
        # shadow pass from light 0 (orthographic, looking along -light_dir)
        lights = scene["lights"]
        light_vp = _light_matrix(np.asarray(lights[0]["dir"], float), scene["shadow_extent"])
        self.shadow_fbo.use()
        self.shadow_fbo.clear(depth=1.0)
        self.depth_prog["viewproj"].value = tuple(light_vp.T.flatten())
        for vao, dvao, model, u in objs[1:]:  # the floor casts no shadow
            if _is_resin(u):  # nor does clear resin, much: the light crosses it
                continue
            self.depth_prog["model"].value = tuple(model.T.flatten())
            dvao.render()
        ms, out = self._fbo(W, H, scene.get("msaa", 0))
        ms.use()
        bg = scene.get("background", (0.2, 0.2, 0.2))
        ms.clear(*bg, 1.0)
        vp = np.asarray(cam["proj"]) @ np.asarray(cam["view"])
        p = self.prog
        p["viewproj"].value = tuple(vp.T.flatten())
        p["light_vp"].value = tuple(light_vp.T.flatten())
        self._set("eye", tuple(cam["eye"]))
        self._set("n_lights", len(lights))
        dirs = [tuple(l["dir"]) for l in lights] + [(0.0, 0.0, 1.0)] * (3 - len(lights))
        cols = [tuple(l["color"]) for l in lights] + [(0.0, 0.0, 0.0)] * (3 - len(lights))
        self._set("light_dir", dirs)
        if "light_pos" in p:
            tgt = np.asarray(cam.get("target", (0.0, 0.0, 0.0)), float)
            p["light_pos"].value = [tuple(tgt + np.asarray(d) * l.get("distance", 600.0))
                                    for d, l in zip(dirs, lights + [{}] * (3 - len(lights)))]
        self._set("light_col", cols)
        self._set("sky", tuple(scene["sky"]))
        self._set("ground", tuple(scene["ground"]))
        self._set("shadow_strength", scene["shadow_strength"])
        self._set("shadow_soft", scene["shadow_soft"])
        blobs = scene.get("blobs", [])[:16]
        self._set("n_blobs", len(blobs))
        if blobs:
            p["blobs"].value = [tuple(b) for b in blobs] + [(0.0, 0.0, 1.0, 0.0)] * (16 - len(blobs))
        self.shadow_depth.use(location=2)
        self._set("shadow_tex", 2)
        see_through = [o[3]["mode"] == 1 and o[3].get("opacity", 1.0) < 1.0 for o in objs]
        opaque = [o for o, c in zip(objs, see_through) if not c]
        clear = [o for o, c in zip(objs, see_through) if c]
        self._set("pass_sel", 0)
        self._set("resin_pass", 0)
        self._set("opacity", 1.0)
        self._draw(opaque)
        if clear:  # translucent dice: what is behind them shows through, their far faces too
            ctx.enable(self.mgl.BLEND)
            for o in clear:
                self._set("opacity", o[3]["opacity"])
                if _is_resin(o[3]):
                    self._draw_resin(o, ms)
                    continue
                ctx.blend_func = self.mgl.SRC_ALPHA, self.mgl.ONE_MINUS_SRC_ALPHA
                for sel in (1, 2):
                    self._set("pass_sel", sel)
                    self._draw([o])
            ctx.disable(self.mgl.BLEND)
        ctx.copy_framebuffer(out, ms)
        data = out.read(components=3)
        img = np.frombuffer(data, np.uint8).reshape(H, W, 3)[::-1]
        if ss > 1:
            import cv2

            img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
        return np.ascontiguousarray(img)

    def _draw_resin(self, o, fbo) -> None:
        """A clear resin die (scene.clear_resin) in three passes: what lies behind it multiplied by the
        colour its body lets through (its near faces, no depth written, so its far faces still draw),
        then its far faces and their numerals seen through it, then its near faces, each added
        premultiplied: their glints and reflections stay whole however clear the body."""
        ctx = self.ctx
        ctx.blend_func = self.mgl.ZERO, self.mgl.SRC_COLOR
        self._set("pass_sel", 2)
        self._set("resin_pass", 1)
        fbo.depth_mask = False
        self._draw([o])
        fbo.depth_mask = True
        self._set("resin_pass", 0)
        ctx.blend_func = self.mgl.ONE, self.mgl.ONE_MINUS_SRC_ALPHA
        for sel in (1, 2):
            self._set("pass_sel", sel)
            self._draw([o])

    def _draw(self, objs) -> None:
        p = self.prog
        for vao, _, model, u in objs:
            p["model"].value = tuple(model.T.flatten())
            self._set("mode", u["mode"])
            if u["mode"] == 0:
                u["tex"].use(location=0)
                self._set("albedo_tex", 0)
                self._set("uv_scale", u["uv_scale"])
                self._set("uv_offset", u["uv_offset"])
                self._set("tint", u["tint"])
                self._set("gloss", u["gloss"])
                self._set("spec_strength", u["spec_strength"])
            else:
                u["label"].use(location=1)
                self._set("label_tex", 1)
                for k in ("body1", "body2", "ink"):
                    self._set(k, tuple(u[k]))
                for k in ("body_kind",):
                    self._set(k, int(u[k]))
                # every die sets its own resin: a clear die's passes leave nothing set for the next die
                for k in ("marble_scale", "gloss", "spec_strength", "ink_gloss", "seed", "resin", "resin_density"):
                    self._set(k, float(u[k]))
            vao.render()


def _is_resin(u: dict) -> bool:
    """Is this object (its uniforms) a clear resin die (scene.clear_resin)? The floor has no resin."""
    return u.get("resin", 0.0) > 0.5


def _light_matrix(light_dir: np.ndarray, extent: float) -> np.ndarray:
    from reader.synth.geometry import look_at

    d = light_dir / np.linalg.norm(light_dir)
    eye = d * extent * 3
    view = look_at(eye, (0, 0, 0), up=(0, 0, 1) if abs(d[2]) < 0.99 else (0, 1, 0))
    e = extent
    near, far = 0.1, extent * 6
    proj = np.array([[1 / e, 0, 0, 0], [0, 1 / e, 0, 0],
                     [0, 0, -2 / (far - near), -(far + near) / (far - near)], [0, 0, 0, 1]])
    return proj @ view
