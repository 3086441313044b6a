"""The two networks: a die detector (centre heatmap + box size) and a die reader (type, face, state).

Both are small depthwise-separable CNNs so that a 1280x720 frame with 10 dice is read in tens of
milliseconds on two CPU cores.
"""

from __future__ import annotations

import torch
from torch import nn
import torch.nn.functional as F


def cbr(i: int, o: int, s: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class DW(nn.Module):
    """Depthwise 3x3 then pointwise 1x1, with a residual when shapes allow."""

    def __init__(self, i: int, o: int, s: int = 1):
        super().__init__()
        self.dw = nn.Sequential(nn.Conv2d(i, i, 3, s, 1, groups=i, bias=False), nn.BatchNorm2d(i), nn.ReLU(inplace=True))
        self.pw = nn.Sequential(nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o))
        self.res = s == 1 and i == o

    def forward(self, x):
        y = self.pw(self.dw(x))
        return F.relu(y + x if self.res else y, inplace=True)


class DiceDetector(nn.Module):
    """Fully convolutional; output stride 4: [heat logit, log w, log h, dx, dy] per cell."""

    STRIDE = 4

    def __init__(self, w: int = 1):
        super().__init__()
        c = [16, 32, 64, 96, 128]
        self.stem = cbr(3, c[0], 2)                                   # /2
        self.s1 = nn.Sequential(DW(c[0], c[1], 2), DW(c[1], c[1]))     # /4
        self.s2 = nn.Sequential(DW(c[1], c[2], 2), DW(c[2], c[2]))     # /8
        self.s3 = nn.Sequential(DW(c[2], c[3], 2), DW(c[3], c[3]), DW(c[3], c[3]))  # /16
        self.s4 = nn.Sequential(DW(c[3], c[4], 2), DW(c[4], c[4]), DW(c[4], c[4]))  # /32
        f = 48
        self.l4 = nn.Conv2d(c[4], f, 1)
        self.l3 = nn.Conv2d(c[3], f, 1)
        self.l2 = nn.Conv2d(c[2], f, 1)
        self.l1 = nn.Conv2d(c[1], f, 1)
        self.smooth = nn.Sequential(DW(f, f), DW(f, f))
        self.head = nn.Conv2d(f, 5, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -2.2

    def forward(self, x):
        x1 = self.s1(self.stem(x))
        x2 = self.s2(x1)
        x3 = self.s3(x2)
        x4 = self.s4(x3)
        p = self.l4(x4)
        p = F.interpolate(p, size=x3.shape[-2:], mode="nearest") + self.l3(x3)
        p = F.interpolate(p, size=x2.shape[-2:], mode="nearest") + self.l2(x2)
        p = F.interpolate(p, size=x1.shape[-2:], mode="nearest") + self.l1(x1)
        return self.head(self.smooth(p))


# The reader's classes. Types include d4 (named, refused by the rules) and "none" (not a die: a
# detector false alarm). Faces are 1..20 as indices 0..19. States: flat, cocked.
TYPES = ("d4", "d6", "d8", "d10", "d12", "d20", "none")
STATES = ("flat", "cocked")


class DiceReaderNet(nn.Module):
    """One crop of one die in, three heads out: type logits, face logits (20), state logits.

    The face head sees the centre of the last feature map (its middle third, 2x2 of 6x6 cells) as
    well as the whole-crop average: the top face sits in the middle of the crop, while a D20 or
    D12 shows the numerals of its neighbour faces around it, which a global average mixes in.
    Type and state are about the whole silhouette and keep the global average alone.
    """

    def __init__(self):
        super().__init__()
        c = [24, 48, 96, 160, 224]
        self.features = nn.Sequential(
            cbr(3, c[0], 2),                                          # 48
            DW(c[0], c[1], 1), DW(c[1], c[1], 2),                     # 24
            DW(c[1], c[2], 1), DW(c[2], c[2], 2), DW(c[2], c[2]),     # 12
            DW(c[2], c[3], 1), DW(c[3], c[3], 2), DW(c[3], c[3]), DW(c[3], c[3]),  # 6
            DW(c[3], c[4], 1), DW(c[4], c[4]),
        )
        self.drop = nn.Dropout(0.2)
        self.type_head = nn.Linear(c[4], len(TYPES))
        self.face_head = nn.Linear(2 * c[4], 20)
        self.state_head = nn.Linear(c[4], len(STATES))

    def forward(self, x):
        f = self.features(x)
        h, w = f.shape[-2:]
        g = self.drop(torch.flatten(F.adaptive_avg_pool2d(f, 1), 1))
        centre = self.drop(f[:, :, h // 3: h - h // 3, w // 3: w - w // 3].mean(dim=(2, 3)))
        return self.type_head(g), self.face_head(torch.cat([g, centre], 1)), self.state_head(g)


def load_reader_state(net: DiceReaderNet, state: dict) -> None:
    """Load weights, widening a face head trained on the global average alone (reader v5 and
    before): its weights take the global half and the centre half starts at zero, so the widened
    net reads exactly as the old one did until training teaches it to use the centre."""
    w = state.get("face_head.weight")
    if w is not None and w.shape[1] * 2 == net.face_head.weight.shape[1]:
        state = dict(state)
        state["face_head.weight"] = torch.cat([w, torch.zeros_like(w)], 1)
    net.load_state_dict(state)


class LeanNet(nn.Module):
    """Is this die leaning? From its crop turned so that the camera's foot is below it, and the
    angle (degrees off vertical) the camera sees it at.

    The reader's own state head cannot tell a cocked die whose upturned face looks at the camera
    from a flat die seen from above: it learnt from crops turned every way, and its global average
    forgets where things are. Seen from 30 degrees off vertical a flat die shows the side face
    toward the camera's foot; a die showing a face squarely, or its second face on the far side,
    is leaning. So this network keeps where its features are (a 6x6 map, flattened), is never
    taught on turned crops, and is told the angle. The features are the reader's, taught on.
    """

    def __init__(self):
        super().__init__()
        self.features = DiceReaderNet().features
        self.squeeze = nn.Sequential(nn.Conv2d(224, 16, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.drop = nn.Dropout(0.2)
        self.hidden = nn.Linear(16 * 6 * 6 + 2, 64)
        self.out = nn.Linear(64 + 2, 2)

    def forward(self, x, slant):
        a = slant.reshape(-1, 1) / 45.0
        angle = torch.cat([a, a * a], 1)
        f = self.drop(torch.flatten(self.squeeze(self.features(x)), 1))
        h = F.relu(self.hidden(torch.cat([f, angle], 1)))
        return self.out(torch.cat([self.drop(h), angle], 1))
