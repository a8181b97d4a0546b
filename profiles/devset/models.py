"""The development set's models: each exercises a class of op that the
estimator must handle on machines it has not seen (depthwise and grouped
convolutions, 3-D convolutions, dilation, attention, recurrent layers,
embedding bags, every normalisation, Adam and SGD).

Each builder returns (model, make_batch, loss_fn, optimizer_name).  Inputs are
synthetic (random data of the right shape): the kernels a training step runs
depend on shapes, not on values.  Sizes are chosen to look like common models
of each family; none is taken from the validation traces of the project.
"""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _cls_loss(out, y):
    return F.cross_entropy(out, y)


# -- vision -----------------------------------------------------------------

def _images(batch, device, size=224):
    """make() of an ImageNet classifier: random size x size RGB images and labels."""
    def make():
        return (torch.randn(batch, 3, size, size, device=device),
                torch.randint(0, 1000, (batch,), device=device))
    return make


def mobilenetv2(batch, device):
    import torchvision
    m = torchvision.models.mobilenet_v2(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "sgd_momentum"


def efficientnet(batch, device):
    import torchvision
    m = torchvision.models.efficientnet_b0(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "sgd_momentum"


def vit(batch, device):
    from torchvision.models.vision_transformer import VisionTransformer
    # ViT-S/16 width, half depth: attention through nn.MultiheadAttention.
    m = VisionTransformer(image_size=224, patch_size=16, num_layers=6,
                          num_heads=6, hidden_dim=384, mlp_dim=1536,
                          num_classes=1000)
    return m, _images(batch, device), _cls_loss, "adamw"


class SegNet(nn.Module):
    """A dilated 2-D segmentation network with group norm (scientific images)."""

    def __init__(self, cin=4, width=64, classes=8):
        super().__init__()
        layers = []
        c = cin
        for dil in (1, 2, 4, 8, 1):
            layers += [nn.Conv2d(c, width, 3, padding=dil, dilation=dil),
                       nn.GroupNorm(8, width), nn.GELU()]
            c = width
        layers += [nn.Conv2d(c, classes, 1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def _pixels(batch, channels, classes, device):
    """make() of a 256x256 segmentation net: random images and per-pixel labels."""
    def make():
        return (torch.randn(batch, channels, 256, 256, device=device),
                torch.randint(0, classes, (batch, 256, 256), device=device))
    return make


def segnet(batch, device):
    return SegNet(), _pixels(batch, 4, 8, device), _cls_loss, "adamw"


class UNet3D(nn.Module):
    """A small 3-D U-Net (volumetric science data): Conv3d, BatchNorm3d,
    max-pool and transposed 3-D convolutions."""

    def __init__(self, cin=1, w=16, classes=4):
        super().__init__()

        def block(a, b):
            return nn.Sequential(nn.Conv3d(a, b, 3, padding=1), nn.BatchNorm3d(b),
                                 nn.ReLU(inplace=True),
                                 nn.Conv3d(b, b, 3, padding=1), nn.BatchNorm3d(b),
                                 nn.ReLU(inplace=True))
        self.e1, self.e2, self.e3 = block(cin, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.pool = nn.MaxPool3d(2)
        self.u2 = nn.ConvTranspose3d(4 * w, 2 * w, 2, stride=2)
        self.d2 = block(4 * w, 2 * w)
        self.u1 = nn.ConvTranspose3d(2 * w, w, 2, stride=2)
        self.d1 = block(2 * w, w)
        self.out = nn.Conv3d(w, classes, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(self.pool(a))
        c = self.e3(self.pool(b))
        d = self.d2(torch.cat([self.u2(c), b], 1))
        e = self.d1(torch.cat([self.u1(d), a], 1))
        return self.out(e)


def unet3d(batch, device):
    m = UNet3D()

    def make():
        return (torch.randn(batch, 1, 64, 64, 64, device=device),
                torch.randint(0, 4, (batch, 64, 64, 64), device=device))
    return m, make, _cls_loss, "adamw"


# -- language ---------------------------------------------------------------

class Block(nn.Module):
    def __init__(self, d, heads, causal):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads, self.causal = heads, causal

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads) \
            .permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPTMini(nn.Module):
    """A decoder-only language model: token and position embeddings, causal
    scaled-dot-product attention, layer norm, GELU MLP, tied-free LM head."""

    def __init__(self, vocab=32000, d=512, layers=8, heads=8, seq=512):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, True) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def _lm_loss(out, y):
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def _tokens(batch, seq, vocab, device):
    """make() of a language model: random token ids and next-token targets."""
    def make():
        return (torch.randint(0, vocab, (batch, seq), device=device),
                torch.randint(0, vocab, (batch, seq), device=device))
    return make


def gptmini(batch, device):
    return GPTMini(), _tokens(batch, 512, 32000, device), _lm_loss, "adamw"


class Encoder(nn.Module):
    """A BERT-base-width encoder of 4 layers through nn.TransformerEncoder."""

    def __init__(self, vocab=30522, d=768, layers=4, heads=12, seq=128):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1,
                                           activation="gelu", batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        return self.head(self.ln(self.enc(x)))


def bert(batch, device):
    return Encoder(), _tokens(batch, 128, 30522, device), _lm_loss, "adamw"


# -- recurrent --------------------------------------------------------------

class RNNLM(nn.Module):
    """A recurrent language model: embedding, a stack of `cell` (nn.GRU or
    nn.LSTM) layers, a vocabulary head."""

    def __init__(self, cell, vocab, emb, hidden, layers, dropout=0.0):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = cell(emb, hidden, layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, idx):
        h, _ = self.rnn(self.emb(idx))
        return self.head(h)


def gru(batch, device):
    m = RNNLM(nn.GRU, vocab=10000, emb=256, hidden=512, layers=2)
    return m, _tokens(batch, 128, 10000, device), _lm_loss, "sgd_momentum"


class BiLSTMTagger(nn.Module):
    def __init__(self, feat=300, hidden=256, tags=50):
        super().__init__()
        self.rnn = nn.LSTM(feat, hidden, 1, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, tags)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.head(h)


def bilstm(batch, device):
    m, seq = BiLSTMTagger(), 64

    def make():
        return (torch.randn(batch, seq, 300, device=device),
                torch.randint(0, 50, (batch, seq), device=device))
    return m, make, _lm_loss, "sgd_momentum"


# -- recommendation ---------------------------------------------------------

class DLRM(nn.Module):
    """DLRM-shaped recommender: dense MLP, embedding bags (sum), pairwise dot
    interaction by batched GEMM, top MLP."""

    def __init__(self, tables=8, rows=200000, dim=64, dense=13):
        super().__init__()
        self.bot = nn.Sequential(nn.Linear(dense, 512), nn.ReLU(),
                                 nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, dim))
        self.embs = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum")
                                  for _ in range(tables))
        n = tables + 1
        self.top = nn.Sequential(nn.Linear(dim + n * (n - 1) // 2, 512), nn.ReLU(),
                                 nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 1))

    def forward(self, inp):
        dense, idx, offs = inp
        x = self.bot(dense)
        feats = [x] + [e(idx[i], offs) for i, e in enumerate(self.embs)]
        z = torch.stack(feats, 1)
        inter = torch.bmm(z, z.transpose(1, 2))
        i, j = torch.tril_indices(z.shape[1], z.shape[1], -1, device=z.device)
        return self.top(torch.cat([x, inter[:, i, j]], 1)).squeeze(1)


def dlrm(batch, device):
    m, lookups = DLRM(), 20

    def make():
        idx = torch.randint(0, 200000, (8, batch * lookups), device=device)
        offs = torch.arange(0, batch * lookups, lookups, device=device)
        return ((torch.randn(batch, 13, device=device), idx, offs),
                torch.rand(batch, device=device))
    return m, make, lambda out, y: F.binary_cross_entropy_with_logits(out, y), "sgd"


# -- second round -----------------------------------------------------------
# Added as the held-out set once the estimator's design was settled; the
# estimator was later changed after looking at their results, which moved
# them into the development set (SECOND-ROUND.md): ConvTranspose,
# channels-last LayerNorm, dilated 1-D convolutions, wide LSTMs,
# encoder-decoder cross attention.

def convnext(batch, device):
    import torchvision
    # ConvNeXt-T: depthwise 7x7, LayerNorm over channels, GELU MLPs
    m = torchvision.models.convnext_tiny(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "adamw"


class ConvAE(nn.Module):
    """An image autoencoder: strided Conv2d down, ConvTranspose2d up,
    BatchNorm2d and LeakyReLU, trained on reconstruction."""

    def __init__(self, width=64):
        super().__init__()
        enc, dec, c = [], [], 3
        for w in (width, 2 * width, 4 * width, 8 * width):
            enc += [nn.Conv2d(c, w, 4, stride=2, padding=1), nn.BatchNorm2d(w), nn.LeakyReLU(0.2)]
            c = w
        for w in (4 * width, 2 * width, width):
            dec += [nn.ConvTranspose2d(c, w, 4, stride=2, padding=1), nn.BatchNorm2d(w), nn.LeakyReLU(0.2)]
            c = w
        dec += [nn.ConvTranspose2d(c, 3, 4, stride=2, padding=1)]
        self.net = nn.Sequential(*enc, *dec)

    def forward(self, x):
        return self.net(x)


def convae(batch, device):
    m = ConvAE()

    def make():
        x = torch.randn(batch, 3, 128, 128, device=device)
        return x, x.clone()
    return m, make, F.mse_loss, "adamw"


class TCN(nn.Module):
    """A temporal convolutional network over long 1-D signals: dilated
    Conv1d residual blocks (dilation 1..32), dropout, a pooled classifier."""

    def __init__(self, cin=8, width=128, levels=6, classes=10):
        super().__init__()
        self.inp = nn.Conv1d(cin, width, 1)
        self.blocks = nn.ModuleList(nn.Sequential(
            nn.Conv1d(width, width, 3, padding=2 ** i, dilation=2 ** i), nn.ReLU(), nn.Dropout(0.1),
            nn.Conv1d(width, width, 3, padding=2 ** i, dilation=2 ** i), nn.ReLU(), nn.Dropout(0.1))
            for i in range(levels))
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = torch.relu(h + b(h))
        return self.head(h.mean(dim=2))


def tcn(batch, device):
    m = TCN()

    def make():
        return (torch.randn(batch, 8, 4096, device=device),
                torch.randint(0, 10, (batch,), device=device))
    return m, make, _cls_loss, "sgd_momentum"


def lstmlm(batch, device):
    m = RNNLM(nn.LSTM, vocab=16000, emb=512, hidden=1024, layers=2, dropout=0.1)
    return m, _tokens(batch, 64, 16000, device), _lm_loss, "adamw"


class Seq2Seq(nn.Module):
    """An encoder-decoder transformer (nn.Transformer: 3 + 3 layers, d 512,
    cross attention) translating 96 source tokens into 64 target tokens."""

    def __init__(self, vocab=24000, d=512, layers=3, heads=8, src=96, tgt=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos_s, self.pos_t = nn.Embedding(src, d), nn.Embedding(tgt, d)
        self.tf = nn.Transformer(d, heads, layers, layers, 4 * d, dropout=0.1, batch_first=True)
        self.head = nn.Linear(d, vocab)
        self.src = src

    def forward(self, idx):
        s, t = idx[:, :self.src], idx[:, self.src:]
        xs = self.tok(s) + self.pos_s(torch.arange(s.shape[1], device=idx.device))
        xt = self.tok(t) + self.pos_t(torch.arange(t.shape[1], device=idx.device))
        mask = nn.Transformer.generate_square_subsequent_mask(t.shape[1], device=idx.device)
        return self.head(self.tf(xs, xt, tgt_mask=mask, tgt_is_causal=True))


def seq2seq(batch, device):
    m = Seq2Seq()

    def make():
        return (torch.randint(0, 24000, (batch, 96 + 64), device=device),
                torch.randint(0, 24000, (batch, 64), device=device))
    return m, make, _lm_loss, "adamw"


# -- third round ------------------------------------------------------------
# Recorded once the second round had been looked at (which moved it into
# the development set) and run through the estimator as the held-out set
# once its changes of that day were settled; the 3-D rows measured after
# that run moved them into the development set too (THIRD-ROUND.md): a DenseNet (concatenations, many small
# convolutions), a LLaMA-style decoder (RMSNorm, SwiGLU, rotary
# embeddings), a step-by-step attention decoder (LSTMCell loop: host-bound
# small ops), a two-tower recommender (embedding bags in mean mode,
# in-batch softmax) and a CosmoFlow-shaped 3-D CNN (Conv3d, MaxPool3d).

def densenet(batch, device):
    import torchvision
    m = torchvision.models.densenet121(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "sgd_momentum"


def _rope(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.gate = nn.Linear(d, ff, bias=False)
        self.up = nn.Linear(d, ff, bias=False)
        self.down = nn.Linear(ff, d, bias=False)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        qkv = self.qkv(self.n1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        a = F.scaled_dot_product_attention(_rope(q, cos, sin), _rope(k, cos, sin), v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Llama(nn.Module):
    """A LLaMA-style decoder: RMSNorm, rotary position embeddings, causal
    SDPA, SwiGLU MLPs, no biases."""

    def __init__(self, vocab=16000, d=512, layers=6, heads=8, ff=1408, seq=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(LlamaBlock(d, heads, ff) for _ in range(layers))
        self.norm = nn.RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        hd = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(seq).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x, self.cos[:t], self.sin[:t])
        return self.head(self.norm(x))


def llama(batch, device):
    return Llama(), _tokens(batch, 256, 16000, device), _lm_loss, "adamw"


class AttnLSTM(nn.Module):
    """A recurrent encoder-decoder decoded step by step: a bidirectional
    GRU encoder, an LSTMCell decoder looping over the target with additive
    attention (per step: small GEMMs, tanh, softmax, bmm), teacher
    forcing."""

    def __init__(self, vocab=8000, emb=256, hidden=512, src=48):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.enc = nn.GRU(emb, hidden // 2, batch_first=True, bidirectional=True)
        self.cell = nn.LSTMCell(emb + hidden, hidden)
        self.wq = nn.Linear(hidden, hidden, bias=False)
        self.wk = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, 1, bias=False)
        self.out = nn.Linear(hidden, vocab)
        self.src = src

    def forward(self, idx):
        s, t = idx[:, :self.src], idx[:, self.src:]
        enc, _ = self.enc(self.emb(s))
        keys = self.wk(enc)
        h = enc.new_zeros(idx.shape[0], enc.shape[2])
        c, ctx = torch.zeros_like(h), torch.zeros_like(h)
        et = self.emb(t)
        outs = []
        for i in range(t.shape[1]):
            h, c = self.cell(torch.cat([et[:, i], ctx], 1), (h, c))
            w = torch.softmax(self.v(torch.tanh(keys + self.wq(h).unsqueeze(1))).squeeze(2), 1)
            ctx = torch.bmm(w.unsqueeze(1), enc).squeeze(1)
            outs.append(h)
        return self.out(torch.stack(outs, 1))


def attnlstm(batch, device):
    m = AttnLSTM()

    def make():
        return (torch.randint(0, 8000, (batch, 48 + 32), device=device),
                torch.randint(0, 8000, (batch, 32), device=device))
    return m, make, _lm_loss, "adamw"


class TwoTower(nn.Module):
    """A two-tower retrieval model: a user tower over the user's id and the
    mean of the embeddings of 50 items in their history (EmbeddingBag,
    mean), an item tower, cosine scores against every item of the batch
    (in-batch softmax)."""

    def __init__(self, users=500000, items=200000, dim=64):
        super().__init__()
        self.user = nn.Embedding(users, dim)
        self.hist = nn.EmbeddingBag(items, dim, mode="mean")
        self.item = nn.Embedding(items, dim)
        self.ut = nn.Sequential(nn.Linear(2 * dim, 256), nn.ReLU(), nn.Linear(256, 128))
        self.it = nn.Sequential(nn.Linear(dim, 256), nn.ReLU(), nn.Linear(256, 128))

    def forward(self, inp):
        uid, hist, iid = inp
        u = self.ut(torch.cat([self.user(uid), self.hist(hist)], 1))
        v = self.it(self.item(iid))
        return F.normalize(u, dim=1) @ F.normalize(v, dim=1).t() * 20.0


def twotower(batch, device):
    m = TwoTower()

    def make():
        return ((torch.randint(0, 500000, (batch,), device=device),
                 torch.randint(0, 200000, (batch, 50), device=device),
                 torch.randint(0, 200000, (batch,), device=device)),
                torch.arange(batch, device=device))
    return m, make, _cls_loss, "adamw"


class CosmoFlow(nn.Module):
    """A CosmoFlow-shaped 3-D CNN regressing 4 parameters from 4-channel
    64^3 volumes: five Conv3d (3^3) + LeakyReLU + MaxPool3d levels, then
    dense layers with dropout."""

    def __init__(self, cin=4, widths=(16, 32, 64, 128, 256), out=4):
        super().__init__()
        layers, c = [], cin
        for w in widths:
            layers += [nn.Conv3d(c, w, 3, padding=1), nn.LeakyReLU(0.3), nn.MaxPool3d(2)]
            c = w
        self.conv = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c * 8, 128), nn.LeakyReLU(0.3), nn.Dropout(0.2),
                                  nn.Linear(128, 64), nn.LeakyReLU(0.3), nn.Linear(64, out))

    def forward(self, x):
        return self.head(self.conv(x))


def cosmoflow(batch, device):
    m = CosmoFlow()

    def make():
        return (torch.randn(batch, 4, 64, 64, 64, device=device),
                torch.randn(batch, 4, device=device))
    return m, make, F.mse_loss, "adamw"


# -- fourth round --------------------------------------------------------------
# Five models recorded after the third round had been looked at, the
# held-out set until the indexed ops and the H200's grouped rows measured
# for their results moved them into the development set (FOURTH-ROUND.md):
# a ShuffleNetV2 (channel shuffles, splits, depthwise), a GraphSAGE network
# (gathers and scatter-adds over edges), an MLP-Mixer (transposed token
# MLPs), a DeepSpeech-shaped speech model (2-D convolutions on spectrograms,
# a 3-layer bidirectional GRU, CTC loss) and a RegNetX (grouped
# convolutions).

def shufflenet(batch, device):
    import torchvision
    m = torchvision.models.shufflenet_v2_x1_0(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "sgd_momentum"


class SAGE(nn.Module):
    """GraphSAGE (mean aggregation) in plain PyTorch: per layer, gather the
    neighbours' features along the edges, scatter-add them to their
    destinations, divide by the degree, and concatenate with the node's own
    features before a linear layer."""

    def __init__(self, fin=128, hidden=256, classes=47, layers=3):
        super().__init__()
        dims = [fin] + [hidden] * (layers - 1) + [classes]
        self.lins = nn.ModuleList(nn.Linear(2 * a, b) for a, b in zip(dims[:-1], dims[1:]))

    def forward(self, inp):
        x, src, dst, deg = inp
        for i, lin in enumerate(self.lins):
            agg = torch.zeros_like(x).index_add_(0, dst, x.index_select(0, src)) / deg
            x = lin(torch.cat([x, agg], dim=1))
            if i < len(self.lins) - 1:
                x = F.dropout(F.relu(x), 0.5, self.training)
        return x


def gcn(batch, device):
    """batch: nodes of a random graph with 16 in-edges per node."""
    m = SAGE()

    def make():
        n, e = batch, 16 * batch
        dst = torch.arange(n, device=device).repeat_interleave(16)
        src = torch.randint(0, n, (e,), device=device)
        deg = torch.full((n, 1), 16.0, device=device)
        return ((torch.randn(n, 128, device=device), src, dst, deg),
                torch.randint(0, 47, (n,), device=device))
    return m, make, _cls_loss, "adamw"


class MixerBlock(nn.Module):
    def __init__(self, tokens, d, tok_hidden, ch_hidden):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.tok = nn.Sequential(nn.Linear(tokens, tok_hidden), nn.GELU(), nn.Linear(tok_hidden, tokens))
        self.ch = nn.Sequential(nn.Linear(d, ch_hidden), nn.GELU(), nn.Linear(ch_hidden, d))

    def forward(self, x):
        x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.ch(self.n2(x))


class Mixer(nn.Module):
    """MLP-Mixer at 224x224, patch 16 (196 tokens), width 512, 8 blocks."""

    def __init__(self, d=512, blocks=8, classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, d, 16, stride=16)
        self.blocks = nn.Sequential(*[MixerBlock(196, d, 256, 2048) for _ in range(blocks)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(x)).mean(1))


def mixer(batch, device):
    return Mixer(), _images(batch, device), _cls_loss, "adamw"


class DeepSpeech(nn.Module):
    """Two strided 2-D convolutions over a 161-bin spectrogram, a 3-layer
    bidirectional GRU (hidden 512), per-frame characters (29), CTC loss."""

    def __init__(self, bins=161, hidden=512, chars=29):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, (41, 11), stride=(2, 2), padding=(20, 5)), nn.BatchNorm2d(32), nn.Hardtanh(0, 20),
            nn.Conv2d(32, 32, (21, 11), stride=(2, 1), padding=(10, 5)), nn.BatchNorm2d(32), nn.Hardtanh(0, 20))
        f = (bins + 2 * 20 - 41) // 2 + 1
        feat = 32 * ((f + 2 * 10 - 21) // 2 + 1)
        self.rnn = nn.GRU(feat, hidden, num_layers=3, bidirectional=True, batch_first=True)
        self.out = nn.Linear(2 * hidden, chars)

    def forward(self, x):
        x = self.conv(x)                            # b, 32, f, t
        b, c, f, t = x.shape
        x = x.permute(0, 3, 1, 2).reshape(b, t, c * f)
        x, _ = self.rnn(x)
        return self.out(x).log_softmax(-1)


def _ctc_loss(out, y):
    t = out.shape[1]
    return F.ctc_loss(out.transpose(0, 1), y,
                      torch.full((out.shape[0],), t, dtype=torch.long, device=out.device),
                      torch.full((out.shape[0],), y.shape[1], dtype=torch.long, device=out.device))


def deepspeech(batch, device):
    m = DeepSpeech()

    def make():
        return (torch.randn(batch, 1, 161, 400, device=device),
                torch.randint(1, 29, (batch, 60), device=device))
    return m, make, _ctc_loss, "adamw"


def regnet(batch, device):
    import torchvision
    m = torchvision.models.regnet_x_400mf(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "sgd_momentum"


# -- fifth round ---------------------------------------------------------------
# Five models recorded after the fourth round had been looked at: a GIN
# graph network (per-element gather and scatter_add_ over edges, sum
# aggregation), a ResNeXt-50 (grouped convolutions of 32 groups), a Swin-T
# (shifted-window attention: rolls, window partitions, LayerNorm), a
# PointNet classifier (1x1 1-D convolutions over points, max over points,
# 3x3 transform by bmm) and a WaveNet-shaped audio model (gated dilated
# causal 1-D convolutions, residual and skip 1x1 convolutions).

class GIN(nn.Module):
    """Graph Isomorphism Network, sum aggregation: per layer, the
    neighbours' features gathered along the edges (torch.gather with a
    per-element index) and summed at their destinations by scatter_add_,
    then an MLP of two linear layers with BatchNorm."""

    def __init__(self, fin=100, hidden=300, classes=40, layers=4):
        super().__init__()
        dims = [fin] + [hidden] * layers
        self.mlps = nn.ModuleList(
            nn.Sequential(nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU(), nn.Linear(b, b), nn.ReLU())
            for a, b in zip(dims[:-1], dims[1:]))
        self.head = nn.Linear(hidden, classes)

    def forward(self, inp):
        x, src, dst = inp
        for mlp in self.mlps:
            f = x.shape[1]
            msg = torch.gather(x, 0, src.unsqueeze(1).expand(-1, f))
            agg = torch.zeros_like(x).scatter_add_(0, dst.unsqueeze(1).expand(-1, f), msg)
            x = mlp(x + agg)
        return self.head(x)


def gin(batch, device):
    """batch: nodes of a random graph with 6 in-edges per node."""
    m = GIN()

    def make():
        n, e = batch, 6 * batch
        dst = torch.randint(0, n, (e,), device=device)
        src = torch.randint(0, n, (e,), device=device)
        return ((torch.randn(n, 100, device=device), src, dst),
                torch.randint(0, 40, (n,), device=device))
    return m, make, _cls_loss, "adamw"


def resnext(batch, device):
    import torchvision
    m = torchvision.models.resnext50_32x4d(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "sgd_momentum"


def swin(batch, device):
    import torchvision
    m = torchvision.models.swin_t(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "adamw"


class PointNet(nn.Module):
    """PointNet classifier over 1,024 points: an input transform (3x3, by
    bmm), shared per-point MLPs as 1x1 Conv1d with BatchNorm1d, a max over
    the points, and a fully connected head."""

    def __init__(self, classes=40):
        super().__init__()

        def mlp(chs):
            layers = []
            for a, b in zip(chs[:-1], chs[1:]):
                layers += [nn.Conv1d(a, b, 1), nn.BatchNorm1d(b), nn.ReLU()]
            return nn.Sequential(*layers)
        self.tnet = mlp([3, 64, 128, 1024])
        self.tfc = nn.Sequential(nn.Linear(1024, 256), nn.ReLU(), nn.Linear(256, 9))
        self.feat = mlp([3, 64, 64, 64, 128, 1024])
        self.head = nn.Sequential(nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(),
                                  nn.Dropout(0.3), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, classes))

    def forward(self, x):                           # b, 3, points
        t = self.tfc(self.tnet(x).amax(2)).view(-1, 3, 3) + torch.eye(3, device=x.device)
        x = torch.bmm(t, x)
        return self.head(self.feat(x).amax(2))


def _points(batch, device):
    """make() of a point-cloud classifier: 1,024 random points, 40 classes."""
    def make():
        return (torch.randn(batch, 3, 1024, device=device),
                torch.randint(0, 40, (batch,), device=device))
    return make


def pointnet(batch, device):
    return PointNet(), _points(batch, device), _cls_loss, "adamw"


class WaveNet(nn.Module):
    """WaveNet-shaped: 2 stacks of 10 gated dilated causal 1-D convolutions
    (kernel 2, dilation 1..512, 64 residual channels), residual and skip
    1x1 convolutions, 256-way output per sample."""

    def __init__(self, ch=64, skip=128, classes=256, stacks=2, layers=10):
        super().__init__()
        self.inp = nn.Conv1d(1, ch, 1)
        self.dil = nn.ModuleList()
        self.res = nn.ModuleList()
        self.skp = nn.ModuleList()
        for _ in range(stacks):
            for i in range(layers):
                self.dil.append(nn.Conv1d(ch, 2 * ch, 2, dilation=2 ** i))
                self.res.append(nn.Conv1d(ch, ch, 1))
                self.skp.append(nn.Conv1d(ch, skip, 1))
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip, skip, 1), nn.ReLU(), nn.Conv1d(skip, classes, 1))

    def forward(self, x):
        x = self.inp(x)
        total = 0
        for dil, res, skp in zip(self.dil, self.res, self.skp):
            d = dil.dilation[0]
            h = dil(F.pad(x, (d, 0)))
            a, b = h.chunk(2, dim=1)
            z = torch.tanh(a) * torch.sigmoid(b)
            total = total + skp(z)
            x = x + res(z)
        return self.out(total)


def _wave_loss(out, y):
    return F.cross_entropy(out, y)


def wavenet(batch, device):
    m = WaveNet()

    def make():
        return (torch.randn(batch, 1, 8000, device=device),
                torch.randint(0, 256, (batch, 8000), device=device))
    return m, make, _wave_loss, "adamw"


# -- sixth round ---------------------------------------------------------------
# Five models recorded after the fifth round had been looked at: a DCN-v2
# recommender (embeddings, cross layers, BatchNorm1d MLP), a MaxViT-T
# (MBConv with squeeze-excite, block and grid attention), a NeRF-style MLP
# (positional encoding by sin and cos, wide ReLU MLP over sample points),
# a Fourier neural operator (2-D FFTs and complex mode mixing) and a
# Conformer encoder (feed-forward halves, self-attention, depthwise 1-D
# convolution with GLU and BatchNorm1d).

class DCN(nn.Module):
    """DCN-v2: 26 categorical fields of 100,000 ids embedded 32 wide and 13
    dense features, 3 full-rank cross layers and a 3-layer MLP with
    BatchNorm1d, one logit."""

    def __init__(self, fields=26, ids=100000, dim=32, dense=13):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(ids, dim) for _ in range(fields))
        d = fields * dim + dense
        self.cross = nn.ModuleList(nn.Linear(d, d) for _ in range(3))
        self.mlp = nn.Sequential(nn.Linear(d, 1024), nn.BatchNorm1d(1024), nn.ReLU(),
                                 nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(),
                                 nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU())
        self.out = nn.Linear(d + 256, 1)

    def forward(self, inp):
        cat, dense = inp
        x0 = torch.cat([e(cat[:, i]) for i, e in enumerate(self.emb)] + [dense], dim=1)
        x = x0
        for lin in self.cross:
            x = x0 * lin(x) + x
        return self.out(torch.cat([x, self.mlp(x0)], dim=1)).squeeze(1)


def _bce_loss(out, y):
    return F.binary_cross_entropy_with_logits(out, y)


def dcn(batch, device):
    m = DCN()

    def make():
        return ((torch.randint(0, 100000, (batch, 26), device=device),
                 torch.randn(batch, 13, device=device)),
                torch.randint(0, 2, (batch,), device=device).float())
    return m, make, _bce_loss, "adamw"


def maxvit(batch, device):
    import torchvision
    m = torchvision.models.maxvit_t(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "adamw"


class NeRF(nn.Module):
    """NeRF-style MLP over sample points: positional encoding of xyz (10
    frequencies) and of the view direction (4), 8 layers of 256 with a skip,
    density and colour heads."""

    def __init__(self, w=256):
        super().__init__()
        px, pd = 3 + 3 * 2 * 10, 3 + 3 * 2 * 4
        self.l1 = nn.ModuleList([nn.Linear(px, w)] + [nn.Linear(w, w) for _ in range(4)])
        self.l2 = nn.ModuleList([nn.Linear(w + px, w)] + [nn.Linear(w, w) for _ in range(2)])
        self.sigma = nn.Linear(w, 1)
        self.feat = nn.Linear(w, w)
        self.rgb = nn.Sequential(nn.Linear(w + pd, w // 2), nn.ReLU(), nn.Linear(w // 2, 3))

    @staticmethod
    def enc(x, n):
        f = 2.0 ** torch.arange(n, device=x.device, dtype=x.dtype)
        a = (x.unsqueeze(-1) * f).flatten(1)
        return torch.cat([x, torch.sin(a), torch.cos(a)], dim=1)

    def forward(self, inp):
        xyz, d = inp
        ex, ed = self.enc(xyz, 10), self.enc(d, 4)
        h = ex
        for lin in self.l1:
            h = F.relu(lin(h))
        h = torch.cat([h, ex], dim=1)
        for lin in self.l2:
            h = F.relu(lin(h))
        sigma = F.softplus(self.sigma(h))
        rgb = torch.sigmoid(self.rgb(torch.cat([self.feat(h), ed], dim=1)))
        return torch.cat([rgb, sigma], dim=1)


def _mse_loss(out, y):
    return F.mse_loss(out, y)


def nerf(batch, device):
    """batch: sample points."""
    m = NeRF()

    def make():
        return ((torch.rand(batch, 3, device=device), torch.randn(batch, 3, device=device)),
                torch.rand(batch, 4, device=device))
    return m, make, _mse_loss, "adamw"


class SpectralConv(nn.Module):
    def __init__(self, c, modes):
        super().__init__()
        self.modes = modes
        scale = 1.0 / (c * c)
        self.w1 = nn.Parameter(scale * torch.randn(c, c, modes, modes, 2))
        self.w2 = nn.Parameter(scale * torch.randn(c, c, modes, modes, 2))

    def forward(self, x):
        b, c, h, w = x.shape
        m = self.modes
        xf = torch.fft.rfft2(x.float())
        out = torch.zeros(b, c, h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
        w1, w2 = torch.view_as_complex(self.w1), torch.view_as_complex(self.w2)
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m, :m], w1)
        out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, -m:, :m], w2)
        return torch.fft.irfft2(out, s=(h, w))


class FNO(nn.Module):
    """2-D Fourier neural operator on a 128x128 grid: 4 layers of width 32,
    16 Fourier modes each way, a 1x1 convolution beside each spectral one."""

    def __init__(self, c=32, modes=16, layers=4):
        super().__init__()
        self.lift = nn.Conv2d(3, c, 1)
        self.spec = nn.ModuleList(SpectralConv(c, modes) for _ in range(layers))
        self.pw = nn.ModuleList(nn.Conv2d(c, c, 1) for _ in range(layers))
        self.proj = nn.Sequential(nn.Conv2d(c, 128, 1), nn.GELU(), nn.Conv2d(128, 1, 1))

    def forward(self, x):
        x = self.lift(x)
        for sp, pw in zip(self.spec, self.pw):
            x = F.gelu(sp(x) + pw(x))
        return self.proj(x)


def fno(batch, device):
    m = FNO()

    def make():
        return (torch.randn(batch, 3, 128, 128, device=device),
                torch.randn(batch, 1, 128, 128, device=device))
    return m, make, _mse_loss, "adamw"


class ConformerBlock(nn.Module):
    def __init__(self, d=256, heads=4, kernel=31):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln_att = nn.LayerNorm(d)
        self.att = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln_conv = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, kernel, padding=kernel // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)
        self.ln_out = nn.LayerNorm(d)

    def forward(self, x):
        x = x + 0.5 * self.ff1(x)
        h = self.ln_att(x)
        x = x + self.att(h, h, h, need_weights=False)[0]
        h = self.ln_conv(x).transpose(1, 2)
        h = F.glu(self.pw1(h), dim=1)
        h = self.pw2(F.silu(self.bn(self.dw(h))))
        x = x + h.transpose(1, 2)
        x = x + 0.5 * self.ff2(x)
        return self.ln_out(x)


class Conformer(nn.Module):
    """Conformer encoder: 80 filterbanks over 400 frames, a 4x subsampling by
    two strided 2-D convolutions, 6 blocks of width 256, per-frame
    classes (128)."""

    def __init__(self, d=256, blocks=6, classes=128):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv2d(1, d, 3, stride=2), nn.ReLU(), nn.Conv2d(d, d, 3, stride=2), nn.ReLU())
        self.inp = nn.Linear(d * 19, d)
        self.blocks = nn.Sequential(*[ConformerBlock(d) for _ in range(blocks)])
        self.out = nn.Linear(d, classes)

    def forward(self, x):                       # b, 1, 80 bins, 400 frames
        x = self.sub(x)                         # b, d, 19, 99
        b, c, f, t = x.shape
        x = self.inp(x.permute(0, 3, 1, 2).reshape(b, t, c * f))
        return self.out(self.blocks(x)).transpose(1, 2)   # b, classes, t


def conformer(batch, device):
    m = Conformer()

    def make():
        return (torch.randn(batch, 1, 80, 400, device=device),
                torch.randint(0, 128, (batch, 99), device=device))
    return m, make, _cls_loss, "adamw"


# -- seventh round -------------------------------------------------------------
# Five models recorded after the sixth round had been looked at: a
# mixture-of-experts decoder (a router, top-2 choice, tokens gathered per
# expert with nonzero and index_select and combined with index_add_: data-
# dependent shapes and a host sync per expert), a diffusion U-Net (GroupNorm,
# SiLU, timestep embeddings, attention over feature maps, nearest upsampling,
# skip concatenations), a T5-small-shaped encoder-decoder (hand-written RMS
# norm, relative position bias added to explicit matmul-softmax attention,
# gated GELU), a 1-D ResNet over 12-lead ECGs (long Conv1d with
# BatchNorm1d, multi-label BCE) and a graph attention network (edge softmax
# by scatter_reduce_ and index_add_ over the edges).

class MoEFFN(nn.Module):
    """Top-k mixture of expert MLPs over a flat list of tokens.  Tokens are
    dispatched by gathering the ids routed to each expert, so every expert
    runs dense GEMMs on a variable number of rows, as token-choice MoE
    layers do without a capacity factor."""

    def __init__(self, d, ff, experts, top):
        super().__init__()
        self.router = nn.Linear(d, experts, bias=False)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))
                                     for _ in range(experts))
        self.top = top

    def forward(self, x):                                       # tokens, d
        probs = torch.softmax(self.router(x).float(), dim=-1)   # tokens, experts
        w, idx = probs.topk(self.top, dim=-1)                   # tokens, top
        w = w / w.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            tok, slot = torch.nonzero(idx == e, as_tuple=True)  # routed tokens, which of their top-k
            y = expert(x.index_select(0, tok)) * w[tok, slot].unsqueeze(1)
            # under autocast the expert's output is bf16 and the weights fp32
            out.index_add_(0, tok, y.to(out.dtype))
        return out


class MoEBlock(nn.Module):
    def __init__(self, d, heads, experts, top):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.moe = MoEFFN(d, 4 * d, experts, top)
        self.heads = heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads) \
            .permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.moe(self.ln2(x).reshape(b * t, d)).view(b, t, d)


class MoELM(nn.Module):
    """A decoder-only language model whose feed-forward layers are
    mixtures of 8 GELU experts (384 -> 1536 -> 384) with a top-2 softmax
    router; causal SDPA and LayerNorm as in GPTMini."""

    def __init__(self, vocab=8000, d=384, layers=6, heads=6, seq=256, experts=8, top=2):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(MoEBlock(d, heads, experts, top) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def moe(batch, device):
    return MoELM(), _tokens(batch, 256, 8000, device), _lm_loss, "adamw"


def _timestep_embedding(t, dim):
    """Sinusoidal embedding of integer diffusion timesteps: b -> b, dim."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device, dtype=torch.float32) / half)
    a = t.float()[:, None] * freqs[None]
    return torch.cat([a.sin(), a.cos()], dim=1)


class ResBlock2d(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(32, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.t = nn.Linear(tdim, cout)
        self.n2, self.c2 = nn.GroupNorm(32, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        h = self.c1(F.silu(self.n1(x)))
        h = h + self.t(F.silu(temb))[:, :, None, None]
        h = self.c2(F.silu(self.n2(h)))
        return self.skip(x) + h


class Attn2d(nn.Module):
    """Self-attention over the h*w positions of a feature map, heads of 64."""

    def __init__(self, c, head_dim=64):
        super().__init__()
        self.norm = nn.GroupNorm(32, c)
        self.qkv, self.proj = nn.Conv2d(c, 3 * c, 1), nn.Conv2d(c, c, 1)
        self.heads = c // head_dim

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.qkv(self.norm(x)).reshape(b, 3 * c, h * w).transpose(1, 2)   # b, hw, 3c
        # heads last-dim contiguous, as the fused SDPA kernels want them
        q, k, v = qkv.reshape(b, h * w, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v)                             # b, heads, hw, dh
        return x + self.proj(a.permute(0, 1, 3, 2).reshape(b, c, h, w))


class _UNetStage(nn.Module):
    def __init__(self, cin, cout, tdim, attn):
        super().__init__()
        self.res = ResBlock2d(cin, cout, tdim)
        self.attn = Attn2d(cout) if attn else nn.Identity()

    def forward(self, x, temb):
        return self.attn(self.res(x, temb))


class _DownSample(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, stride=2, padding=1)

    def forward(self, x, temb):
        return self.conv(x)


class _UpSample(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x, temb):
        return self.conv(F.interpolate(x, scale_factor=2, mode="nearest"))


class UNet2D(nn.Module):
    """DDPM-shaped noise-prediction U-Net on 64x64 RGB: base width 64,
    multipliers (1, 2, 2, 4) over the 64, 32, 16 and 8 levels, two
    ResBlocks per level going down and three coming up (each concatenating
    a skip), attention at 16x16 and 8x8 and in the middle."""

    def __init__(self, base=64, mult=(1, 2, 2, 4), blocks=2, attn_levels=(2, 3)):
        super().__init__()
        tdim = 4 * base
        self.base = base
        self.temb = nn.Sequential(nn.Linear(base, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.conv_in = nn.Conv2d(3, base, 3, padding=1)
        self.down = nn.ModuleList()
        chans, c = [base], base     # channels of every skip, in push order
        for lvl, m in enumerate(mult):
            for _ in range(blocks):
                self.down.append(_UNetStage(c, base * m, tdim, lvl in attn_levels))
                c = base * m
                chans.append(c)
            if lvl < len(mult) - 1:
                self.down.append(_DownSample(c))
                chans.append(c)
        self.mid1, self.mid_attn, self.mid2 = ResBlock2d(c, c, tdim), Attn2d(c), ResBlock2d(c, c, tdim)
        self.up = nn.ModuleList()
        for lvl, m in reversed(list(enumerate(mult))):
            for _ in range(blocks + 1):
                self.up.append(_UNetStage(c + chans.pop(), base * m, tdim, lvl in attn_levels))
                c = base * m
            if lvl > 0:
                self.up.append(_UpSample(c))
        self.out = nn.Sequential(nn.GroupNorm(32, c), nn.SiLU(), nn.Conv2d(c, 3, 3, padding=1))

    def forward(self, inp):
        x, t = inp                                          # b, 3, 64, 64; b
        temb = self.temb(_timestep_embedding(t, self.base))  # b, 4 * base
        h = self.conv_in(x)
        hs = [h]
        for mod in self.down:
            h = mod(h, temb)
            hs.append(h)
        h = self.mid2(self.mid_attn(self.mid1(h, temb)), temb)   # b, 256, 8, 8
        for mod in self.up:
            if isinstance(mod, _UpSample):
                h = mod(h, temb)
            else:
                h = mod(torch.cat([h, hs.pop()], dim=1), temb)
        return self.out(h)                                  # b, 3, 64, 64


def unet2d(batch, device):
    m = UNet2D()

    def make():
        return ((torch.randn(batch, 3, 64, 64, device=device),
                 torch.randint(0, 1000, (batch,), device=device)),
                torch.randn(batch, 3, 64, 64, device=device))
    return m, make, _mse_loss, "adamw"


class T5Norm(nn.Module):
    """T5's layer norm: scale by the root mean square, no centring, no bias
    (in fp32, as T5 computes it whatever the activations' type)."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        x = x.float()
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def _t5_bucket(rel, bidirectional, buckets=32, max_dist=128):
    """T5's buckets of key-minus-query offsets: half of them exact, the rest
    logarithmic up to max_dist; the encoder's split by the offset's sign."""
    ret = 0
    if bidirectional:
        buckets //= 2
        ret = (rel > 0).long() * buckets
        n = rel.abs()
    else:
        n = (-rel).clamp(min=0)
    exact = buckets // 2
    # clamped below so that log never sees 0; those offsets take the exact bucket
    far = exact + (torch.log(n.float().clamp(min=exact) / exact) / math.log(max_dist / exact)
                   * (buckets - exact)).long()
    return ret + torch.where(n < exact, n, far.clamp(max=buckets - 1))


class T5Bias(nn.Module):
    """Relative position bias: one learned scalar per bucket and head,
    computed once per forward and shared by every layer of the stack."""

    def __init__(self, heads, bidirectional, buckets=32, max_dist=128):
        super().__init__()
        self.emb = nn.Embedding(buckets, heads)
        self.bidirectional, self.buckets, self.max_dist = bidirectional, buckets, max_dist

    def forward(self, q, k, device):
        rel = torch.arange(k, device=device)[None, :] - torch.arange(q, device=device)[:, None]   # q, k
        b = _t5_bucket(rel, self.bidirectional, self.buckets, self.max_dist)
        return self.emb(b).permute(2, 0, 1).unsqueeze(0)                                        # 1, heads, q, k


class T5Attention(nn.Module):
    """Explicit matmul-softmax-matmul attention: the additive position bias
    rules out the fused SDPA kernels."""

    def __init__(self, d, heads, dh):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(d, heads * dh, bias=False) for _ in range(3))
        self.o = nn.Linear(heads * dh, d, bias=False)
        self.heads, self.dh = heads, dh
        self.drop = nn.Dropout(0.1)

    def forward(self, x, kv, bias):
        b, t, _ = x.shape
        s = kv.shape[1]
        q = self.q(x).view(b, t, self.heads, self.dh).transpose(1, 2)     # b, heads, t, dh
        k = self.k(kv).view(b, s, self.heads, self.dh).transpose(1, 2)    # b, heads, s, dh
        v = self.v(kv).view(b, s, self.heads, self.dh).transpose(1, 2)
        scores = q @ k.transpose(2, 3)          # b, heads, t, s; T5 leaves out the 1/sqrt(dh)
        if bias is not None:
            scores = scores + bias
        w = self.drop(torch.softmax(scores.float(), dim=-1)).type_as(v)
        return self.o((w @ v).transpose(1, 2).reshape(b, t, self.heads * self.dh))


class T5Layer(nn.Module):
    """Pre-norm T5 layer: self-attention, cross-attention in the decoder,
    gated-GELU feed-forward (T5 v1.1), dropout on every residual branch."""

    def __init__(self, d, heads, dh, ff, cross):
        super().__init__()
        self.n1, self.sa = T5Norm(d), T5Attention(d, heads, dh)
        if cross:
            self.n2, self.ca = T5Norm(d), T5Attention(d, heads, dh)
        self.n3 = T5Norm(d)
        self.wi0, self.wi1 = nn.Linear(d, ff, bias=False), nn.Linear(d, ff, bias=False)
        self.wo = nn.Linear(ff, d, bias=False)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, bias, mem=None):
        h = self.n1(x)
        x = x + self.drop(self.sa(h, h, bias))
        if mem is not None:
            x = x + self.drop(self.ca(self.n2(x), mem, None))
        h = self.n3(x)
        g = F.gelu(self.wi0(h), approximate="tanh") * self.wi1(h)
        return x + self.drop(self.wo(self.drop(g)))


class T5Small(nn.Module):
    """T5-small-shaped encoder-decoder (v1.1 layout): shared input
    embedding, 6 + 6 layers of width 512, 8 heads of 64, feed-forward 1024,
    relative position bias (32 buckets, distance 128), an untied LM head."""

    def __init__(self, vocab=8000, d=512, layers=6, heads=8, dh=64, ff=1024):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.enc_bias, self.dec_bias = T5Bias(heads, True), T5Bias(heads, False)
        self.enc = nn.ModuleList(T5Layer(d, heads, dh, ff, False) for _ in range(layers))
        self.dec = nn.ModuleList(T5Layer(d, heads, dh, ff, True) for _ in range(layers))
        self.enc_norm, self.dec_norm = T5Norm(d), T5Norm(d)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, inp):
        src, tgt = inp                                      # b, 256; b, 64
        s, t = src.shape[1], tgt.shape[1]
        x = self.drop(self.emb(src))
        bias = self.enc_bias(s, s, src.device)              # 1, heads, s, s
        for layer in self.enc:
            x = layer(x, bias)
        mem = self.drop(self.enc_norm(x))                   # b, s, d
        causal = torch.ones(t, t, dtype=torch.bool, device=tgt.device).triu(1)
        bias = self.dec_bias(t, t, tgt.device).masked_fill(causal, float("-inf"))   # 1, heads, t, t
        y = self.drop(self.emb(tgt))
        for layer in self.dec:
            y = layer(y, bias, mem)
        return self.head(self.drop(self.dec_norm(y)))       # b, t, vocab


def t5small(batch, device):
    m = T5Small()

    def make():
        return ((torch.randint(0, 8000, (batch, 256), device=device),
                 torch.randint(0, 8000, (batch, 64), device=device)),
                torch.randint(0, 8000, (batch, 64), device=device))
    return m, make, _lm_loss, "adamw"


class _Basic1d(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv1d(cin, cout, 7, stride=stride, padding=3, bias=False)
        self.b1 = nn.BatchNorm1d(cout)
        self.c2 = nn.Conv1d(cout, cout, 7, padding=3, bias=False)
        self.b2 = nn.BatchNorm1d(cout)
        self.short = (nn.Sequential(nn.Conv1d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm1d(cout))
                      if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        h = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(h)) + self.short(x))


class ECGResNet(nn.Module):
    """ResNet-18-shaped 1-D network over 10 s of 12-lead ECG at 500 Hz: a
    kernel-15 strided stem and max-pool, four stages of two basic blocks
    (kernel 7; the first stage keeps the pooled length, the others halve
    it), average pooling, 27 diagnostic labels."""

    def __init__(self, leads=12, classes=27, widths=(64, 128, 256, 512)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(leads, widths[0], 15, stride=2, padding=7, bias=False),
                                  nn.BatchNorm1d(widths[0]), nn.ReLU(), nn.MaxPool1d(3, 2, padding=1))
        blocks, c = [], widths[0]
        for i, w in enumerate(widths):
            blocks += [_Basic1d(c, w, 1 if i == 0 else 2), _Basic1d(w, w, 1)]
            c = w
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(c, classes)

    def forward(self, x):                       # b, 12, 5000
        x = self.blocks(self.stem(x))           # stem 64 x 1250, stages to 512 x 157
        return self.head(self.pool(x).flatten(1))


def ecgresnet(batch, device):
    m = ECGResNet()

    def make():
        return (torch.randn(batch, 12, 5000, device=device),
                torch.randint(0, 2, (batch, 27), device=device).float())
    return m, make, _bce_loss, "sgd_momentum"


class GATLayer(nn.Module):
    """One graph attention layer: per head, a score per edge from the
    projected source and destination features, a softmax over each
    destination's in-edges (max by scatter_reduce_, sum by index_add_),
    and the attention-weighted messages summed by index_add_."""

    def __init__(self, fin, fout, heads, concat, drop):
        super().__init__()
        self.lin = nn.Linear(fin, heads * fout, bias=False)
        self.att_src = nn.Parameter(torch.empty(heads, fout))
        self.att_dst = nn.Parameter(torch.empty(heads, fout))
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)
        self.bias = nn.Parameter(torch.zeros(heads * fout if concat else fout))
        self.heads, self.fout, self.concat, self.drop = heads, fout, concat, drop

    def forward(self, x, src, dst):
        n, h = x.shape[0], self.heads
        z = self.lin(x).view(n, h, self.fout)                       # n, heads, fout
        a_src = (z * self.att_src).sum(-1)                          # n, heads
        a_dst = (z * self.att_dst).sum(-1)
        e = F.leaky_relu(a_src.index_select(0, src) + a_dst.index_select(0, dst), 0.2).float()   # E, heads
        # the per-destination max only keeps exp() in range: no gradient through it
        mx = e.new_full((n, h), float("-inf")).scatter_reduce_(
            0, dst.unsqueeze(1).expand(-1, h), e.detach(), "amax")   # n, heads
        p = torch.exp(e - mx.index_select(0, dst))                  # E, heads
        den = e.new_zeros(n, h).index_add_(0, dst, p)               # n, heads
        alpha = F.dropout(p / den.index_select(0, dst), self.drop, self.training)
        msg = z.index_select(0, src) * alpha.unsqueeze(2).to(z.dtype)   # E, heads, fout
        out = msg.new_zeros(n, h, self.fout).index_add_(0, dst, msg)    # n, heads, fout
        out = out.flatten(1) if self.concat else out.mean(1)
        return out + self.bias


class GAT(nn.Module):
    """Graph attention network: two layers of 8 heads of 64 (concatenated)
    with ELU, an output layer of one head over the 40 classes, dropout 0.1
    on the features and the attention coefficients."""

    def __init__(self, fin=128, hidden=64, heads=8, classes=40, drop=0.1):
        super().__init__()
        self.layers = nn.ModuleList([GATLayer(fin, hidden, heads, True, drop),
                                     GATLayer(hidden * heads, hidden, heads, True, drop),
                                     GATLayer(hidden * heads, classes, 1, False, drop)])
        self.drop = drop

    def forward(self, inp):
        x, src, dst = inp
        for i, layer in enumerate(self.layers):
            x = layer(F.dropout(x, self.drop, self.training), src, dst)
            if i < len(self.layers) - 1:
                x = F.elu(x)
        return x


def gat(batch, device):
    """batch: nodes of a random graph with 10 in-edges per node on average,
    plus a self-loop on every node (as GAT adds them), so that no
    destination's softmax is empty."""
    m = GAT()

    def make():
        n, e = batch, 10 * batch
        loop = torch.arange(n, device=device)
        src = torch.cat([torch.randint(0, n, (e,), device=device), loop])
        dst = torch.cat([torch.randint(0, n, (e,), device=device), loop])
        return ((torch.randn(n, 128, device=device), src, dst),
                torch.randint(0, 40, (n,), device=device))
    return m, make, _cls_loss, "adamw"


# -- eighth round --------------------------------------------------------------
# Five models recorded after the seventh round had been looked at: a
# Perceiver classifier (cross-attention of a few learned latents to a long
# input, with separate key and value widths, then latent self-attention), an
# RNN-Transducer-shaped speech model (LSTMs, and a joint network whose
# [batch, frames, labels, vocabulary] logits dwarf the rest of the model),
# an EfficientNetV2-S (fused-MBConv, MBConv, squeeze-excite, stochastic
# depth), an R3D-18 video network (3-D convolutions and BatchNorm3d over
# 16-frame clips) and a NeuMF recommender (large embeddings, a GMF product
# and a small MLP, tens of thousands of rows per batch).

class PerceiverCross(nn.Module):
    """Pre-norm cross-attention of the latents to the inputs, then a GELU
    MLP; keys and values come from the narrower input width (kdim, vdim)."""

    def __init__(self, d, din, heads):
        super().__init__()
        self.nq, self.nkv, self.n2 = nn.LayerNorm(d), nn.LayerNorm(din), nn.LayerNorm(d)
        self.att = nn.MultiheadAttention(d, heads, kdim=din, vdim=din, batch_first=True)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, lat, x):                  # b, latents, d; b, inputs, din
        kv = self.nkv(x)
        lat = lat + self.att(self.nq(lat), kv, kv, need_weights=False)[0]
        return lat + self.fc2(F.gelu(self.fc1(self.n2(lat))))


class Perceiver(nn.Module):
    """Perceiver classifier: 2,048 input tokens of 64 features projected to
    256, 256 learned latents of width 512 that cross-attend to them once
    (one head, as the Perceiver's cross-attention has), 6 pre-norm latent
    self-attention blocks (8 heads, MLP 4x), a mean over the latents, 100
    classes."""

    def __init__(self, fin=64, din=256, latents=256, d=512, layers=6, heads=8, classes=100):
        super().__init__()
        self.inp = nn.Linear(fin, din)
        self.latents = nn.Parameter(0.02 * torch.randn(latents, d))
        self.cross = PerceiverCross(d, din, 1)
        self.blocks = nn.ModuleList(Block(d, heads, False) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, classes)

    def forward(self, x):                       # b, 2048, 64
        x = self.inp(x)                         # b, 2048, 256
        lat = self.cross(self.latents.expand(x.shape[0], -1, -1), x)   # b, 256, 512
        for blk in self.blocks:
            lat = blk(lat)
        return self.head(self.norm(lat).mean(1))


def perceiver(batch, device):
    m = Perceiver()

    def make():
        return (torch.randn(batch, 2048, 64, device=device),
                torch.randint(0, 100, (batch,), device=device))
    return m, make, _cls_loss, "adamw"


class RNNT(nn.Module):
    """RNN-Transducer-shaped: a 2-layer LSTM encoder (80 filterbanks, hidden
    320) over 200 frames, not subsampled; a prediction network (embedding of
    128 labels, a 1-layer LSTM of 320) over the 40 labels and a start; a
    joint network adding every frame to every label position, tanh, and a
    129-way output (the labels and the blank)."""

    def __init__(self, feat=80, hidden=320, vocab=128):
        super().__init__()
        self.enc = nn.LSTM(feat, hidden, 2, batch_first=True)
        self.emb = nn.Embedding(vocab, hidden)
        self.pred = nn.LSTM(hidden, hidden, 1, batch_first=True)
        self.joint = nn.Linear(hidden, vocab + 1)

    def forward(self, inp):
        x, labels = inp                                     # b, 200, 80; b, 40
        f, _ = self.enc(x)                                  # b, T, 320
        e = self.emb(labels)                                # b, U, 320
        # the start of every label sequence is a zero vector
        e = torch.cat([e.new_zeros(e.shape[0], 1, e.shape[2]), e], dim=1)   # b, U + 1, 320
        g, _ = self.pred(e)                                 # b, U + 1, 320
        h = torch.tanh(f.unsqueeze(2) + g.unsqueeze(1))     # b, T, U + 1, 320
        return self.joint(h)                                # b, T, U + 1, 129


def _rnnt_loss(out, y):
    """Stands in for the transducer loss, which would need torchaudio: the
    log-softmax over the whole joint output, as the transducer loss takes
    it, then the mean negative log-likelihood of one random target per
    (frame, label position).  The joint's size and its softmax stay; the
    loss's alignment recursion over (frame, label) is left out."""
    return -F.log_softmax(out, dim=-1).gather(-1, y.unsqueeze(-1)).mean()


def rnnt(batch, device):
    m = RNNT()

    def make():
        return ((torch.randn(batch, 200, 80, device=device),
                 torch.randint(0, 128, (batch, 40), device=device)),
                torch.randint(0, 129, (batch, 200, 41), device=device))
    return m, make, _rnnt_loss, "adamw"


def effnetv2(batch, device):
    import torchvision
    # EfficientNetV2-S at 224x224: fused-MBConv (full 3x3) early, MBConv
    # (depthwise, squeeze-excite) later, SiLU, stochastic depth while training
    m = torchvision.models.efficientnet_v2_s(num_classes=1000)
    return m, _images(batch, device), _cls_loss, "sgd_momentum"


def r3d(batch, device):
    import torchvision
    # R3D-18 (Kinetics-400 head): full 3x3x3 convolutions, BatchNorm3d
    m = torchvision.models.video.r3d_18(num_classes=400)

    def make():
        return (torch.randn(batch, 3, 16, 112, 112, device=device),
                torch.randint(0, 400, (batch,), device=device))
    return m, make, _cls_loss, "sgd_momentum"


class NeuMF(nn.Module):
    """Neural collaborative filtering (NeuMF) at MovieLens-20M's size,
    138,000 users and 27,000 items: a GMF branch (the product of 64-wide
    user and item embeddings) and an MLP branch (128-wide embeddings,
    concatenated, 256 -> 128 -> 64 with ReLU), one logit from both."""

    def __init__(self, users=138000, items=27000, gmf=64, mlp=128):
        super().__init__()
        self.gu, self.gi = nn.Embedding(users, gmf), nn.Embedding(items, gmf)
        self.mu, self.mi = nn.Embedding(users, mlp), nn.Embedding(items, mlp)
        self.mlp = nn.Sequential(nn.Linear(2 * mlp, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.out = nn.Linear(gmf + 64, 1)

    def forward(self, inp):
        u, i = inp                                          # b; b
        g = self.gu(u) * self.gi(i)                         # b, 64
        h = self.mlp(torch.cat([self.mu(u), self.mi(i)], dim=1))   # b, 64
        return self.out(torch.cat([g, h], dim=1)).squeeze(1)       # b


def ncf(batch, device):
    m = NeuMF()

    def make():
        return ((torch.randint(0, 138000, (batch,), device=device),
                 torch.randint(0, 27000, (batch,), device=device)),
                torch.randint(0, 2, (batch,), device=device).float())
    return m, make, _bce_loss, "adamw"


# -- ninth round ---------------------------------------------------------------
# Five models recorded after the eighth round had been looked at: a VQ-VAE
# (a codebook searched by a distance matmul and argmin, an embedding
# lookup, the straight-through estimator), a Mamba-style selective
# state-space language model (depthwise causal Conv1d, and a scan over the
# sequence in a Python loop: hundreds of small elementwise kernels per
# layer), a Whisper-tiny-shaped speech encoder-decoder (strided Conv1d
# over log-mel frames, SDPA self-attention over 1,500 frames,
# cross-attention from 64 tokens), a YOLOv5s-shaped detector (Conv-BN-SiLU,
# C3 blocks, SPPF max-pools, FPN/PAN neck with nearest upsampling and
# concatenations, three heads) and an FT-Transformer over tabular rows
# (per-feature linear embeddings, SDPA with dropout over 105 short tokens,
# ReGLU, thousands of rows per batch).

class _VQRes(nn.Module):
    """VQ-VAE's residual block: ReLU, 3x3 conv, ReLU, 1x1 conv, added to
    the input (channels and size kept)."""

    def __init__(self, c):
        super().__init__()
        self.net = nn.Sequential(nn.ReLU(), nn.Conv2d(c, c, 3, padding=1),
                                 nn.ReLU(), nn.Conv2d(c, c, 1))

    def forward(self, x):                       # b, c, h, w
        return x + self.net(x)                  # b, c, h, w


class VectorQuantizer(nn.Module):
    """Vector quantizer of VQ-VAE: each latent vector is replaced by its
    nearest code of a 512 x 64 codebook (squared distances x^2 - 2 x.e + e^2
    by one matmul, argmin, embedding lookup); the decoder's gradient passes
    straight through to the encoder.  Returns the quantized latents and, per
    sample, the codebook loss plus 0.25 x the commitment loss."""

    def __init__(self, codes=512, dim=64, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(codes, dim)
        nn.init.uniform_(self.codebook.weight, -1.0 / codes, 1.0 / codes)
        self.beta = beta

    def forward(self, z):                                   # b, 64, 16, 16
        b, c, h, w = z.shape
        e = self.codebook.weight                            # 512, 64
        with torch.no_grad():   # argmin has no gradient: the distances need no graph
            flat = z.permute(0, 2, 3, 1).reshape(-1, c)     # b*16*16, 64
            # the matmul runs in bf16 under autocast, the squared norms in fp32
            d = (flat.float().pow(2).sum(1, keepdim=True)   # b*256, 1
                 - 2 * (flat @ e.t())                       # b*256, 512
                 + e.float().pow(2).sum(1))                 # 512 -> b*256, 512
            idx = d.argmin(1)                               # b*256
        zq = self.codebook(idx).view(b, h, w, c).permute(0, 3, 1, 2)   # b, 64, 16, 16 (fp32)
        z32 = z.float()
        # codebook loss pulls the codes to the encoder's outputs; commitment
        # loss pulls the outputs to their codes
        loss = (((zq - z32.detach()) ** 2).mean((1, 2, 3))
                + self.beta * ((zq.detach() - z32) ** 2).mean((1, 2, 3)))   # b
        return z32 + (zq - z32).detach(), loss              # b, 64, 16, 16; b


class VQVAE(nn.Module):
    """VQ-VAE on 64x64 RGB images: two stride-2 4x4 convolutions (3 -> 64
    -> 128), a 3x3 convolution and two residual blocks of 128, a 1x1
    convolution to 64-wide latents on a 16x16 grid, a 512-code vector
    quantizer, and a decoder mirroring the encoder with two stride-2
    ConvTranspose2d back to 3 channels.  The recorder's loss sees only the
    model's output, so the quantizer's per-sample loss is appended to the
    flattened reconstruction as a last column."""

    def __init__(self, hidden=128, dim=64, codes=512):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, hidden // 2, 4, stride=2, padding=1), nn.ReLU(),        # b, 64, 32, 32
            nn.Conv2d(hidden // 2, hidden, 4, stride=2, padding=1), nn.ReLU(),   # b, 128, 16, 16
            nn.Conv2d(hidden, hidden, 3, padding=1),                             # b, 128, 16, 16
            _VQRes(hidden), _VQRes(hidden), nn.ReLU(),
            nn.Conv2d(hidden, dim, 1))                                           # b, 64, 16, 16
        self.vq = VectorQuantizer(codes, dim)
        self.dec = nn.Sequential(
            nn.Conv2d(dim, hidden, 3, padding=1),                                # b, 128, 16, 16
            _VQRes(hidden), _VQRes(hidden), nn.ReLU(),
            # (16 - 1) * 2 - 2 * 1 + 4 = 32
            nn.ConvTranspose2d(hidden, hidden // 2, 4, stride=2, padding=1), nn.ReLU(),   # b, 64, 32, 32
            nn.ConvTranspose2d(hidden // 2, 3, 4, stride=2, padding=1))         # b, 3, 64, 64

    def forward(self, x):                                   # b, 3, 64, 64
        zq, vq_loss = self.vq(self.enc(x))                  # b, 64, 16, 16; b
        rec = self.dec(zq)                                  # b, 3, 64, 64
        return torch.cat([rec.flatten(1).float(), vq_loss.unsqueeze(1)], dim=1)   # b, 3*64*64 + 1


def _vqvae_loss(out, y):
    """Reconstruction MSE plus the quantizer's codebook and commitment
    terms, which VQVAE appends as the last column of its output."""
    out = out.float()
    return F.mse_loss(out[:, :-1], y.flatten(1)) + out[:, -1].mean()


def vqvae(batch, device):
    m = VQVAE()

    def make():
        x = torch.randn(batch, 3, 64, 64, device=device)
        return x, x.clone()
    return m, make, _vqvae_loss, "adamw"


class MambaBlock(nn.Module):
    """One Mamba block in plain PyTorch, after Mamba's reference selective
    scan (no fused kernels): RMS norm, an input projection to the SSM branch
    and the gate (2 x 512), a depthwise causal Conv1d (kernel 4) and SiLU,
    input-dependent dt (softplus of a linear from a rank-16 projection), B
    and C (16 states), A = -exp(A_log), a scan over the sequence in a Python
    loop (per step, over batch x 512 channels x 16 states: h = exp(dt A) h
    + dt B x, y = (h C).sum), the skip D, the SiLU gate, an output
    projection and the residual.  The scan runs in fp32."""

    def __init__(self, d=256, inner=512, state=16, conv=4, dt_rank=16):
        super().__init__()
        self.norm = T5Norm(d, eps=1e-5)     # x * rsqrt(mean(x^2) + eps) * weight, in fp32
        self.inp = nn.Linear(d, 2 * inner, bias=False)
        self.conv = nn.Conv1d(inner, inner, conv, groups=inner, padding=conv - 1)
        self.xproj = nn.Linear(inner, dt_rank + 2 * state, bias=False)
        self.dtproj = nn.Linear(dt_rank, inner)
        # dt's bias: the inverse softplus of steps spread log-uniformly over
        # [0.001, 0.1], as Mamba initialises it
        dt = torch.exp(torch.rand(inner) * (math.log(0.1) - math.log(0.001)) + math.log(0.001))
        with torch.no_grad():
            self.dtproj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))
        self.A_log = nn.Parameter(torch.log(torch.arange(1, state + 1, dtype=torch.float32))
                                  .repeat(inner, 1))                            # 512, 16
        self.D = nn.Parameter(torch.ones(inner))
        self.out = nn.Linear(inner, d, bias=False)
        self.dt_rank, self.state = dt_rank, state

    def forward(self, x):                                   # b, L, 256 (fp32 residual stream)
        L = x.shape[1]
        u, z = self.inp(self.norm(x)).chunk(2, dim=-1)      # b, L, 512 each
        # padding 3 on both sides gives L + 3 outputs; the first L only see
        # the present and the 3 steps before it
        u = self.conv(u.transpose(1, 2))[..., :L]           # b, 512, L
        u = F.silu(u).transpose(1, 2)                       # b, L, 512
        dt, B, C = self.xproj(u).split([self.dt_rank, self.state, self.state], dim=-1)   # b, L, 16 each
        dt = F.softplus(self.dtproj(dt).float())            # b, L, 512
        A = -torch.exp(self.A_log.float())                  # 512, 16
        u = u.float()
        dA = torch.exp(dt.unsqueeze(-1) * A)                # b, L, 512, 1 * 512, 16 -> b, L, 512, 16
        dBu = (dt * u).unsqueeze(-1) * B.float().unsqueeze(2)   # b, L, 512, 1 * b, L, 1, 16 -> b, L, 512, 16
        # unbind (one backward node that stacks the step gradients) rather
        # than indexing step by step, whose backward writes a zero-filled
        # full-size gradient per step
        dAs, dBus, Cs = dA.unbind(1), dBu.unbind(1), C.float().unbind(1)   # L x (b, 512, 16), L x (b, 16)
        h = u.new_zeros(u.shape[0], u.shape[2], self.state)  # b, 512, 16
        ys = []
        for t in range(L):
            h = dAs[t] * h + dBus[t]                        # b, 512, 16
            ys.append((h * Cs[t].unsqueeze(1)).sum(-1))     # b, 512, 16 * b, 1, 16 -> b, 512
        y = torch.stack(ys, dim=1) + u * self.D             # b, L, 512
        y = y * F.silu(z.float())                           # b, L, 512
        return x + self.out(y)                              # b, L, 256


class MambaLM(nn.Module):
    """A small Mamba-style selective state-space language model: token
    embedding (8,000 x 256), 4 Mamba blocks (inner 512, 16 states), RMS
    norm, an LM head tied to the embedding."""

    def __init__(self, vocab=8000, d=256, layers=4, inner=512, state=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        nn.init.normal_(self.emb.weight, std=0.02)   # as Mamba: N(0, 1) rows would make the tied logits huge
        self.blocks = nn.ModuleList(MambaBlock(d, inner, state) for _ in range(layers))
        self.norm = T5Norm(d, eps=1e-5)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx):                     # b, 128
        x = self.emb(idx)                       # b, 128, 256
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))          # b, 128, 8000


def mamba(batch, device):
    return MambaLM(), _tokens(batch, 128, 8000, device), _lm_loss, "adamw"


def _sinusoids(length, channels):
    """Whisper's fixed sinusoidal positions of the audio encoder: sines then
    cosines, timescales from 1 to 10,000 -> length, channels."""
    inc = math.log(10000.0) / (channels // 2 - 1)
    inv = torch.exp(-inc * torch.arange(channels // 2, dtype=torch.float32))   # channels / 2
    a = torch.arange(length, dtype=torch.float32)[:, None] * inv[None, :]       # length, channels / 2
    return torch.cat([a.sin(), a.cos()], dim=1)                                 # length, channels


class WhisperAttention(nn.Module):
    """Whisper's multi-head attention (no bias on the key projection)
    through SDPA: self-attention when kv is x, cross-attention when kv is
    the encoder's output."""

    def __init__(self, d, heads):
        super().__init__()
        self.q, self.k = nn.Linear(d, d), nn.Linear(d, d, bias=False)
        self.v, self.o = nn.Linear(d, d), nn.Linear(d, d)
        self.heads = heads

    def forward(self, x, kv, causal):
        b, t, d = x.shape
        s, h = kv.shape[1], self.heads
        q = self.q(x).view(b, t, h, d // h).transpose(1, 2)        # b, 6, t, 64
        k = self.k(kv).view(b, s, h, d // h).transpose(1, 2)       # b, 6, s, 64
        v = self.v(kv).view(b, s, h, d // h).transpose(1, 2)       # b, 6, s, 64
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal)   # b, 6, t, 64
        return self.o(a.transpose(1, 2).reshape(b, t, d))          # b, t, 384


class WhisperBlock(nn.Module):
    """Pre-LN Whisper layer: self-attention (causal in the decoder),
    cross-attention to the encoder's output in the decoder, GELU MLP."""

    def __init__(self, d, heads, mlp, cross):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(d), WhisperAttention(d, heads)
        if cross:
            self.ln2, self.xattn = nn.LayerNorm(d), WhisperAttention(d, heads)
        self.ln3 = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, mlp), nn.Linear(mlp, d)
        self.cross = cross

    def forward(self, x, mem=None):             # b, t, 384; b, 1500, 384
        h = self.ln1(x)
        x = x + self.attn(h, h, self.cross)
        if self.cross:
            x = x + self.xattn(self.ln2(x), mem, False)
        return x + self.fc2(F.gelu(self.fc1(self.ln3(x))))


class Whisper(nn.Module):
    """Whisper-tiny-shaped encoder-decoder: 80 log-mel bins over 3,000
    frames, Conv1d (kernel 3) + GELU and a stride-2 Conv1d + GELU down to
    1,500 frames, fixed sinusoidal positions, 4 pre-LN encoder layers (d
    384, 6 heads, MLP 1536); a token embedding of 8,000 with learned
    positions (448, Whisper's text context), 4 decoder layers with causal
    self-attention and cross-attention over the 1,500 frames, and logits
    through the token embedding (tied, as Whisper's)."""

    def __init__(self, mels=80, d=384, heads=6, mlp=1536, layers=4, vocab=8000, frames=1500, ctx=448):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("pos_audio", _sinusoids(frames, d), persistent=False)   # 1500, 384
        self.enc = nn.ModuleList(WhisperBlock(d, heads, mlp, False) for _ in range(layers))
        self.ln_enc = nn.LayerNorm(d)
        self.tok = nn.Embedding(vocab, d)
        nn.init.normal_(self.tok.weight, std=0.02)   # tied to the logits: keep them small at the start
        self.pos_text = nn.Parameter(0.01 * torch.randn(ctx, d))                     # 448, 384
        self.dec = nn.ModuleList(WhisperBlock(d, heads, mlp, True) for _ in range(layers))
        self.ln_dec = nn.LayerNorm(d)

    def forward(self, inp):
        mel, tokens = inp                                   # b, 80, 3000; b, 64
        x = F.gelu(self.conv1(mel))                         # b, 384, 3000
        # (3000 + 2 - 3) // 2 + 1 = 1500 frames
        x = F.gelu(self.conv2(x)).transpose(1, 2)           # b, 1500, 384
        x = x + self.pos_audio
        for blk in self.enc:
            x = blk(x)
        mem = self.ln_enc(x)                                # b, 1500, 384
        y = self.tok(tokens) + self.pos_text[:tokens.shape[1]]   # b, 64, 384
        for blk in self.dec:
            y = blk(y, mem)
        return F.linear(self.ln_dec(y), self.tok.weight)   # b, 64, 8000


def whisper(batch, device):
    m = Whisper()

    def make():
        return ((torch.randn(batch, 80, 3000, device=device),
                 torch.randint(0, 8000, (batch, 64), device=device)),
                torch.randint(0, 8000, (batch, 64), device=device))
    return m, make, _lm_loss, "adamw"


class YConv(nn.Module):
    """YOLOv5's Conv: Conv2d without bias (padding k // 2 unless given),
    BatchNorm2d (eps 0.001, momentum 0.03), SiLU."""

    def __init__(self, c1, c2, k=1, s=1, p=None):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2 if p is None else p, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)

    def forward(self, x):
        return F.silu(self.bn(self.conv(x)))


class YBottleneck(nn.Module):
    """YOLOv5's bottleneck inside C3: 1x1 then 3x3 Conv, same width, with
    or without the shortcut."""

    def __init__(self, c, shortcut):
        super().__init__()
        self.cv1, self.cv2 = YConv(c, c, 1), YConv(c, c, 3)
        self.add = shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C3(nn.Module):
    """YOLOv5's CSP block: two 1x1 Conv branches of half the output width,
    n bottlenecks on the first, the two concatenated and fused by a 1x1
    Conv."""

    def __init__(self, c1, c2, n, shortcut=True):
        super().__init__()
        c = c2 // 2
        self.cv1, self.cv2, self.cv3 = YConv(c1, c), YConv(c1, c), YConv(2 * c, c2)
        self.m = nn.Sequential(*(YBottleneck(c, shortcut) for _ in range(n)))

    def forward(self, x):                                   # b, c1, h, w
        return self.cv3(torch.cat([self.m(self.cv1(x)), self.cv2(x)], dim=1))   # b, c2, h, w


class SPPF(nn.Module):
    """YOLOv5's fast spatial pyramid pooling: a 1x1 Conv to half width,
    three chained 5x5 stride-1 max-pools, the four concatenated, a 1x1
    Conv."""

    def __init__(self, c1, c2, k=5):
        super().__init__()
        c = c1 // 2
        self.cv1, self.cv2 = YConv(c1, c), YConv(4 * c, c2)
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):                                   # b, 512, 10, 10
        x = self.cv1(x)                                     # b, 256, 10, 10
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat([x, y1, y2, self.m(y2)], dim=1))   # b, 1024 -> 512, 10, 10


class YOLOv5s(nn.Module):
    """YOLOv5s-shaped detector (v6 layout, width 0.5, depth 0.33) at
    320x320: a CSP backbone (a 6x6 stride-2 stem, stride-2 Convs, C3 blocks
    of 1, 2, 3, 1 bottlenecks, SPPF), an FPN/PAN neck (1x1 Convs, nearest
    2x upsampling and concatenation top-down, stride-2 Convs and
    concatenation bottom-up, C3 blocks without shortcuts), and three
    detection heads (1x1 Conv to 3 anchors x (4 box + 1 objectness + 80
    classes)) at strides 8, 16 and 32.  The heads' outputs are flattened
    per anchor and cell and concatenated: b, 3 x (40^2 + 20^2 + 10^2), 85."""

    def __init__(self, classes=80, anchors=3):
        super().__init__()
        self.b0 = YConv(3, 32, 6, 2, 2)         # (320 + 4 - 6) // 2 + 1 = 160
        self.b1 = YConv(32, 64, 3, 2)           # 80
        self.b2 = C3(64, 64, 1)
        self.b3 = YConv(64, 128, 3, 2)          # 40
        self.b4 = C3(128, 128, 2)
        self.b5 = YConv(128, 256, 3, 2)         # 20
        self.b6 = C3(256, 256, 3)
        self.b7 = YConv(256, 512, 3, 2)         # 10
        self.b8 = C3(512, 512, 1)
        self.b9 = SPPF(512, 512)
        self.h10 = YConv(512, 256)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.h13 = C3(512, 256, 1, False)
        self.h14 = YConv(256, 128)
        self.h17 = C3(256, 128, 1, False)
        self.h18 = YConv(128, 128, 3, 2)
        self.h20 = C3(256, 256, 1, False)
        self.h21 = YConv(256, 256, 3, 2)
        self.h23 = C3(512, 512, 1, False)
        self.no, self.na = classes + 5, anchors
        self.detect = nn.ModuleList(nn.Conv2d(c, anchors * self.no, 1) for c in (128, 256, 512))

    def forward(self, x):                                   # b, 3, 320, 320
        x = self.b2(self.b1(self.b0(x)))                    # b, 64, 80, 80
        p3 = self.b4(self.b3(x))                            # b, 128, 40, 40
        p4 = self.b6(self.b5(p3))                           # b, 256, 20, 20
        x = self.b9(self.b8(self.b7(p4)))                   # b, 512, 10, 10
        h10 = self.h10(x)                                   # b, 256, 10, 10
        x = self.h13(torch.cat([self.up(h10), p4], dim=1))  # b, 256 + 256 -> 256, 20, 20
        h14 = self.h14(x)                                   # b, 128, 20, 20
        o3 = self.h17(torch.cat([self.up(h14), p3], dim=1))            # b, 128 + 128 -> 128, 40, 40
        o4 = self.h20(torch.cat([self.h18(o3), h14], dim=1))           # b, 128 + 128 -> 256, 20, 20
        o5 = self.h23(torch.cat([self.h21(o4), h10], dim=1))           # b, 256 + 256 -> 512, 10, 10
        outs = []
        for head, o in zip(self.detect, (o3, o4, o5)):
            p = head(o)                                     # b, 255, n, n
            b, _, ny, nx = p.shape
            p = p.view(b, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2)   # b, 3, n, n, 85
            outs.append(p.reshape(b, -1, self.no))          # b, 3 n^2, 85
        return torch.cat(outs, dim=1)                       # b, 4800 + 1200 + 300 = 6300, 85


def _yolo_loss(out, y):
    """Stands in for YOLOv5's loss, which matches the targets to anchors
    and cells and takes CIoU on the matched boxes: here the MSE of the 4
    box channels against random targets plus BCE-with-logits of the
    objectness and 80 class channels against random 0/1 targets, over every
    anchor of every cell at the three strides.  The heads and their
    gradients keep their shapes; the matching is left out."""
    return (F.mse_loss(out[..., :4], y[..., :4])
            + F.binary_cross_entropy_with_logits(out[..., 4:], y[..., 4:]))


def yolo(batch, device):
    m = YOLOv5s()
    n = 3 * (40 * 40 + 20 * 20 + 10 * 10)     # 6300 anchor-cells

    def make():
        return (torch.randn(batch, 3, 320, 320, device=device),
                torch.cat([torch.rand(batch, n, 4, device=device),
                           torch.randint(0, 2, (batch, n, 81), device=device).float()], dim=2))   # b, 6300, 85
    return m, make, _yolo_loss, "sgd_momentum"


class FTLayer(nn.Module):
    """Pre-LN FT-Transformer layer: multi-head SDPA with attention dropout,
    a ReGLU feed-forward (d -> 2 x ff, a * relu(b), ff -> d) with dropout."""

    def __init__(self, d, heads, ff, drop):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * ff), nn.Linear(ff, d)
        self.heads, self.drop = heads, drop

    def forward(self, x):                                   # b, 105, 192
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads) \
            .permute(2, 0, 3, 1, 4)                         # 3 x (b, 8, 105, 24)
        a = F.scaled_dot_product_attention(q, k, v, dropout_p=self.drop if self.training else 0.0)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))  # b, 105, 192
        g, h = self.fc1(self.ln2(x)).chunk(2, dim=-1)       # b, 105, 256 each
        return x + self.fc2(F.dropout(g * F.relu(h), self.drop, self.training))   # b, 105, 192


class FTTransformer(nn.Module):
    """FT-Transformer for tabular rows: 96 numeric features, each embedded
    by its own linear map (x_j W_j + b_j, W and b of 96 x 192), 8
    categorical features of 100 categories embedded 192 wide (one table
    with per-feature offsets, plus a per-feature bias), a [CLS] token, 3
    pre-LN layers (d 192, 8 heads of 24, ReGLU feed-forward of 256, dropout
    0.1), and LayerNorm, ReLU and a linear head on the [CLS] token to one
    logit."""

    def __init__(self, num=96, cat=8, card=100, d=192, layers=3, heads=8, ff=256, drop=0.1):
        super().__init__()
        s = 1.0 / math.sqrt(d)
        self.w_num = nn.Parameter(torch.empty(num, d).uniform_(-s, s))   # 96, 192
        self.b_num = nn.Parameter(torch.empty(num, d).uniform_(-s, s))   # 96, 192
        self.emb = nn.Embedding(cat * card, d)                           # 800, 192
        self.b_cat = nn.Parameter(torch.empty(cat, d).uniform_(-s, s))   # 8, 192
        self.register_buffer("offsets", torch.arange(cat) * card, persistent=False)   # 8
        self.cls = nn.Parameter(torch.empty(d).uniform_(-s, s))          # 192
        self.layers = nn.ModuleList(FTLayer(d, heads, ff, drop) for _ in range(layers))
        self.head = nn.Sequential(nn.LayerNorm(d), nn.ReLU(), nn.Linear(d, 1))

    def forward(self, inp):
        xn, xc = inp                                        # b, 96 (float); b, 8 (ids < 100)
        tn = xn.unsqueeze(2) * self.w_num + self.b_num      # b, 96, 1 * 96, 192 -> b, 96, 192
        tc = self.emb(xc + self.offsets) + self.b_cat       # b, 8, 192
        x = torch.cat([self.cls.expand(xn.shape[0], 1, -1), tn, tc], dim=1)   # b, 1 + 96 + 8 = 105, 192
        for layer in self.layers:
            x = layer(x)
        return self.head(x[:, 0]).squeeze(1)                # b


def _tabular(batch, dense, fields, vocab, device):
    """make() of a click or tabular model: dense features, categorical ids
    of `fields` fields below `vocab`, and a 0/1 label."""
    def make():
        return ((torch.randn(batch, dense, device=device),
                 torch.randint(0, vocab, (batch, fields), device=device)),
                torch.randint(0, 2, (batch,), device=device).float())
    return make


def fttransformer(batch, device):
    return FTTransformer(), _tabular(batch, 96, 8, 100, device), _bce_loss, "adamw"


# -- tenth round ---------------------------------------------------------------
# Five models recorded after the ninth round: a SASRec sequential
# recommender (a 50,000-item embedding table gathered three times per
# position, causal attention over 200 steps, BCE on sampled negatives), a
# DeepLabV3-shaped segmenter (dilated 3x3 convolutions at output stride 8,
# an ASPP head with dilations up to 36, bilinear upsampling of the logits to
# 256x256), a ConvLSTM unrolled step by step in a Python loop (one 3x3
# Conv2d per cell per step, gates by chunk), a SchNet-shaped molecular
# network (Gaussian radial basis of all-pairs distances, a filter MLP per
# edge, index_add_ to the atoms, sum pooling per molecule) and a
# GPT-2-small-shaped decoder (a 50,257-token vocabulary whose odd size
# shapes the tied output GEMM and the cross-entropy).

def _causal_attention(q, k, v):
    """Causal attention of b, heads, t, dh queries, keys and values: SDPA
    where PyTorch has it (2.0 on), else the same maths written out (a
    masked softmax), so that the models also run under 1.13."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    t = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])            # b, heads, t, t
    mask = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
    return s.masked_fill(mask, float("-inf")).softmax(-1).to(v.dtype) @ v   # b, heads, t, dh


class SASRecBlock(nn.Module):
    """SASRec's block: the query is layer-normed, keys and values are not
    (as the reference code), causal multi-head attention added to the
    normed query; then LayerNorm, a point-wise feed-forward (d -> d, ReLU,
    d -> d) with dropout, and its residual."""

    def __init__(self, d, heads, drop):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-8), nn.LayerNorm(d, eps=1e-8)
        self.q, self.kv, self.o = nn.Linear(d, d), nn.Linear(d, 2 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, d), nn.Linear(d, d)
        self.heads, self.drop = heads, drop

    def forward(self, x):                                   # b, 200, 128
        b, t, d = x.shape
        h = self.heads
        xq = self.ln1(x)
        q = self.q(xq).view(b, t, h, d // h).transpose(1, 2)                # b, 2, 200, 64
        k, v = self.kv(x).view(b, t, 2, h, d // h).permute(2, 0, 3, 1, 4)   # 2 x (b, 2, 200, 64)
        a = self.o(_causal_attention(q, k, v).transpose(1, 2).reshape(b, t, d))
        x = xq + F.dropout(a, self.drop, self.training)    # b, 200, 128
        y = self.ln2(x)
        y = self.fc2(F.dropout(F.relu(self.fc1(y)), self.drop, self.training))
        return x + F.dropout(y, self.drop, self.training)  # b, 200, 128


class SASRec(nn.Module):
    """SASRec sequential recommender: an item table of 50,000 items (plus
    the padding id 0) x 128, scaled by sqrt(d), plus a learned position
    embedding of 200, dropout 0.2, 2 causal blocks of 2 heads, a final
    LayerNorm.  Each position's output is scored against the embedding of
    its next (positive) item and of one sampled negative item by dot
    products with the same table; the model returns the two logits."""

    def __init__(self, items=50000, d=128, seq=200, layers=2, heads=2, drop=0.2):
        super().__init__()
        self.item = nn.Embedding(items + 1, d, padding_idx=0)   # 50,001, 128
        self.pos = nn.Embedding(seq, d)                          # 200, 128
        self.blocks = nn.ModuleList(SASRecBlock(d, heads, drop) for _ in range(layers))
        self.ln = nn.LayerNorm(d, eps=1e-8)
        self.d, self.drop = d, drop

    def forward(self, inp):
        seq, pos_neg = inp                                  # b, 200; b, 200, 2 (positive, negative ids)
        t = seq.shape[1]
        x = self.item(seq) * math.sqrt(self.d) + self.pos(torch.arange(t, device=seq.device))
        x = F.dropout(x, self.drop, self.training)          # b, 200, 128
        for blk in self.blocks:
            x = blk(x)
        x = self.ln(x)                                      # b, 200, 128
        e = self.item(pos_neg)                              # b, 200, 2, 128
        return (x.unsqueeze(2) * e).sum(-1)                 # b, 200, 1, 128 * b, 200, 2, 128 -> b, 200, 2


def sasrec(batch, device):
    m = SASRec()
    seq = 200

    def make():
        # ids from 1: 0 is padding; every position is a real item, so no
        # position is masked out of the loss
        y = torch.zeros(batch, seq, 2, device=device)
        y[..., 0] = 1.0                                     # positive 1, negative 0
        return ((torch.randint(1, 50001, (batch, seq), device=device),
                 torch.randint(1, 50001, (batch, seq, 2), device=device)), y)
    return m, make, _bce_loss, "adamw"


class DilatedBasic(nn.Module):
    """ResNet basic block with dilation: two 3x3 Conv-BN (the first maybe
    strided), ReLU, a 1x1 Conv-BN projection on the shortcut when the shape
    changes."""

    def __init__(self, cin, cout, stride=1, dilation=1):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, dilation, dilation, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, dilation, dilation, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
        return F.relu(y + (x if self.short is None else self.short(x)))


def _cbr(cin, cout, k, dilation=1):
    """Conv (no bias, 'same' padding) - BatchNorm - ReLU of DeepLab's head."""
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=dilation * (k // 2), dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


class ASPP(nn.Module):
    """DeepLabV3's atrous spatial pyramid pooling: a 1x1 branch, three 3x3
    branches of dilation 12, 24 and 36 (the rates for output stride 8),
    and an image-pooling branch (global average pool, 1x1 Conv-BN-ReLU,
    bilinear upsampling back to the grid), concatenated and projected by a
    1x1 Conv-BN-ReLU with dropout 0.5."""

    def __init__(self, cin, c=256, rates=(12, 24, 36)):
        super().__init__()
        self.branches = nn.ModuleList([_cbr(cin, c, 1)] + [_cbr(cin, c, 3, r) for r in rates])
        self.pool = _cbr(cin, c, 1)
        self.project = _cbr(c * (len(rates) + 2), c, 1)

    def forward(self, x):                                   # b, 512, 32, 32
        outs = [br(x) for br in self.branches]              # 4 x (b, 256, 32, 32)
        p = self.pool(F.adaptive_avg_pool2d(x, 1))          # b, 256, 1, 1
        outs.append(F.interpolate(p, size=x.shape[-2:], mode="bilinear", align_corners=False))
        return F.dropout(self.project(torch.cat(outs, dim=1)), 0.5, self.training)   # b, 1280 -> 256, 32, 32


class DeepLabV3(nn.Module):
    """DeepLabV3-shaped segmenter at 256x256: a ResNet-18-shaped backbone
    with output stride 8 (a 7x7 stride-2 stem and max-pool to 64x64, basic
    blocks of 64 and 128 (stride 2 to 32x32), then 256 and 512 with
    dilation 2 and 4 in place of striding), the ASPP head, a 3x3
    Conv-BN-ReLU and a 1x1 Conv to 21 classes, and the logits bilinearly
    upsampled to the input's size."""

    def __init__(self, classes=21):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))                       # b, 64, 64, 64
        self.layer1 = nn.Sequential(DilatedBasic(64, 64), DilatedBasic(64, 64))            # 64, 64
        self.layer2 = nn.Sequential(DilatedBasic(64, 128, 2), DilatedBasic(128, 128))      # 32, 32
        self.layer3 = nn.Sequential(DilatedBasic(128, 256, 1, 2), DilatedBasic(256, 256, 1, 2))
        self.layer4 = nn.Sequential(DilatedBasic(256, 512, 1, 4), DilatedBasic(512, 512, 1, 4))
        self.aspp = ASPP(512)
        self.head = nn.Sequential(_cbr(256, 256, 3), nn.Conv2d(256, classes, 1))

    def forward(self, x):                                   # b, 3, 256, 256
        f = self.layer4(self.layer3(self.layer2(self.layer1(self.stem(x)))))   # b, 512, 32, 32
        out = self.head(self.aspp(f))                       # b, 21, 32, 32
        return F.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)   # b, 21, 256, 256


def deeplab(batch, device):
    return DeepLabV3(), _pixels(batch, 3, 21, device), _cls_loss, "sgd_momentum"


class ConvLSTMCell(nn.Module):
    """A ConvLSTM cell: one 3x3 Conv2d over the input and the hidden state
    concatenated gives the four gates (split by chunk); sigmoid input,
    forget and output gates, a tanh candidate."""

    def __init__(self, cin, hidden, k=3):
        super().__init__()
        self.conv = nn.Conv2d(cin + hidden, 4 * hidden, k, padding=k // 2)

    def forward(self, x, h, c):                             # b, cin, 64, 64; b, 64, 64, 64 (x2)
        i, f, g, o = self.conv(torch.cat([x, h], dim=1)).chunk(4, dim=1)   # 4 x (b, 64, 64, 64)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c


class ConvLSTM(nn.Module):
    """ConvLSTM for precipitation nowcasting, shaped as Shi et al.: 10
    input frames of 1 x 64 x 64, 2 stacked cells of 64 hidden channels with
    3x3 kernels unrolled step by step in a Python loop (so 20 small Conv2d
    and their elementwise gates per step), and a 1x1 Conv2d from the top
    cell's last hidden state to the next frame."""

    def __init__(self, cin=1, hidden=64, layers=2):
        super().__init__()
        self.cells = nn.ModuleList(ConvLSTMCell(cin if i == 0 else hidden, hidden) for i in range(layers))
        self.out = nn.Conv2d(hidden, cin, 1)
        self.hidden = hidden

    def forward(self, x):                                   # b, 10, 1, 64, 64
        b, _, _, hh, ww = x.shape
        # the states start as zeros in the input's dtype (fp32); under
        # autocast the gates come out of the convolutions in bf16, and their
        # products with the fp32 cell state promote both states back to fp32
        hs = [x.new_zeros(b, self.hidden, hh, ww) for _ in self.cells]
        cs = [x.new_zeros(b, self.hidden, hh, ww) for _ in self.cells]
        for frame in x.unbind(1):                           # 10 x (b, 1, 64, 64)
            inp = frame
            for j, cell in enumerate(self.cells):
                hs[j], cs[j] = cell(inp, hs[j], cs[j])
                inp = hs[j]                                 # b, 64, 64, 64
        return self.out(hs[-1])                             # b, 1, 64, 64


def convlstm(batch, device):
    m = ConvLSTM()

    def make():
        return (torch.rand(batch, 10, 1, 64, 64, device=device),
                torch.rand(batch, 1, 64, 64, device=device))
    return m, make, _mse_loss, "adamw"


class ShiftedSoftplus(nn.Module):
    """SchNet's activation: softplus(x) - log 2, zero at zero."""

    def forward(self, x):
        return F.softplus(x) - math.log(2.0)


class SchNetInteraction(nn.Module):
    """SchNet's interaction block: a filter-generating MLP on the radial
    basis of each edge (50 -> 128 -> 128, shifted softplus) scaled by a
    cosine cutoff, the neighbours' features (a linear without bias)
    gathered along the edges and multiplied by the filter (the
    continuous-filter convolution), summed to the target atoms by
    index_add_, then linear, shifted softplus, linear."""

    def __init__(self, d=128, rbf=50, cutoff=10.0):
        super().__init__()
        self.filt = nn.Sequential(nn.Linear(rbf, d), ShiftedSoftplus(), nn.Linear(d, d))
        self.lin1 = nn.Linear(d, d, bias=False)
        self.lin2, self.lin3 = nn.Linear(d, d), nn.Linear(d, d)
        self.act = ShiftedSoftplus()
        self.cutoff = cutoff

    def forward(self, h, src, dst, dist, rbf):              # n, 128; E; E; E; E, 50
        # cosine cutoff, zero beyond it: every pair is an edge, so far
        # pairs keep their place and get a zero filter
        cut = 0.5 * (torch.cos(dist * math.pi / self.cutoff) + 1.0) * (dist < self.cutoff)   # E
        w = self.filt(rbf) * cut.unsqueeze(1).to(rbf.dtype)                  # E, 128
        x = self.lin1(h)                                                     # n, 128
        msg = x.index_select(0, src) * w.to(x.dtype)                         # E, 128
        agg = msg.new_zeros(h.shape[0], msg.shape[1]).index_add_(0, dst, msg)   # n, 128
        return self.lin3(self.act(self.lin2(agg)))                           # n, 128


class SchNet(nn.Module):
    """SchNet-shaped energy model: atom-type embedding (100 x 128), pair
    distances expanded on 50 Gaussians (centres 0 to 10 A), 3 interaction
    blocks added to the atom features, an atom-wise MLP (128 -> 64,
    shifted softplus, -> 1), and the atoms' energies summed per molecule by
    index_add_."""

    def __init__(self, types=100, d=128, rbf=50, blocks=3, cutoff=10.0):
        super().__init__()
        self.emb = nn.Embedding(types, d)
        self.register_buffer("centers", torch.linspace(0.0, cutoff, rbf), persistent=False)   # 50
        self.gamma = 0.5 / (cutoff / (rbf - 1)) ** 2
        self.blocks = nn.ModuleList(SchNetInteraction(d, rbf, cutoff) for _ in range(blocks))
        self.out = nn.Sequential(nn.Linear(d, d // 2), ShiftedSoftplus(), nn.Linear(d // 2, 1))

    def forward(self, inp):
        z, pos, src, dst, mol = inp                         # M, 32; M, 32, 3; E; E; n = 32 M
        n_mol = z.shape[0]
        z, pos = z.flatten(), pos.reshape(-1, 3)            # n; n, 3
        dist = (pos.index_select(0, src) - pos.index_select(0, dst)).norm(dim=1)   # E
        rbf = torch.exp(-self.gamma * (dist.unsqueeze(1) - self.centers) ** 2)     # E, 1 - 50 -> E, 50
        h = self.emb(z)                                     # n, 128
        for blk in self.blocks:
            h = h + blk(h, src, dst, dist, rbf)
        e = self.out(h).squeeze(1)                          # n
        return e.new_zeros(n_mol).index_add_(0, mol, e)     # M


def _all_pairs(batch, atoms, device):
    """Every ordered pair of distinct atoms of each of `batch` molecules of
    `atoms` atoms as an edge, molecules as disjoint graphs numbered one
    after another: sources, destinations (E = batch atoms (atoms - 1))
    and each node's molecule."""
    i, j = torch.meshgrid(torch.arange(atoms), torch.arange(atoms), indexing="ij")
    keep = i != j
    off = (torch.arange(batch) * atoms).view(-1, 1)                            # M, 1
    src = (j[keep].view(1, -1) + off).flatten().to(device)                     # E
    dst = (i[keep].view(1, -1) + off).flatten().to(device)                     # E
    mol = torch.arange(batch, device=device).repeat_interleave(atoms)          # n
    return src, dst, mol


def schnet(batch, device):
    """batch: molecules of 32 atoms, every ordered pair of distinct atoms
    of a molecule an edge (32 x 31 = 992 per molecule)."""
    m = SchNet()
    atoms = 32

    def make():
        # the edges of one molecule, offset by 32 per molecule: E = 992 batch
        src, dst, mol = _all_pairs(batch, atoms, device)
        # QM9-like: types H to F, atoms spread over a few angstroms
        return ((torch.randint(1, 10, (batch, atoms), device=device),
                 1.5 * torch.randn(batch, atoms, 3, device=device), src, dst, mol),
                torch.randn(batch, device=device))
    return m, make, _mse_loss, "adamw"


class DiTBlock(nn.Module):
    """DiT block with adaLN-Zero: the conditioning vector gives each
    block's shift, scale and gate for attention and MLP (one linear of
    6 x d), LayerNorm without affine parameters."""
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.n1 = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.n2 = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(d, 6 * d))

    def forward(self, x, c):
        b, t, d = x.shape
        s1, sc1, g1, s2, sc2, g2 = self.ada(c).unsqueeze(1).chunk(6, dim=-1)
        h = self.n1(x) * (1 + sc1) + s1
        q, k, v = self.qkv(h).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if hasattr(F, "scaled_dot_product_attention"):
            a = F.scaled_dot_product_attention(q, k, v)
        else:
            a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1) @ v
        x = x + g1 * self.proj(a.transpose(1, 2).reshape(b, t, d))
        h = self.n2(x) * (1 + sc2) + s2
        return x + g2 * self.fc2(F.gelu(self.fc1(h), approximate="tanh"))


class DiT(nn.Module):
    """DiT-S/2-shaped: 4 x 32 x 32 latents in patches of 2 (256 tokens of
    384), 12 blocks of 6 heads, timestep (sinusoidal, MLP) and class
    embeddings as the condition, predicting the noise (MSE)."""
    def __init__(self, d=384, depth=12, heads=6, classes=1000, patch=2, ch=4, size=32):
        super().__init__()
        self.d, self.patch, self.ch, self.size = d, patch, ch, size
        self.embed = nn.Conv2d(ch, d, patch, stride=patch)
        self.pos = nn.Parameter(torch.zeros(1, (size // patch) ** 2, d))
        self.t_mlp = nn.Sequential(nn.Linear(256, d), nn.SiLU(), nn.Linear(d, d))
        self.y_emb = nn.Embedding(classes + 1, d)
        self.blocks = nn.ModuleList(DiTBlock(d, heads) for _ in range(depth))
        self.n_out = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.ada_out = nn.Sequential(nn.SiLU(), nn.Linear(d, 2 * d))
        self.out = nn.Linear(d, patch * patch * ch)

    def t_embed(self, t):
        half = 128
        f = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device, dtype=torch.float32) / half)
        a = t.float()[:, None] * f[None]
        return self.t_mlp(torch.cat([torch.cos(a), torch.sin(a)], dim=-1))

    def forward(self, inp):
        x, t, y = inp
        b = x.shape[0]
        h = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        c = self.t_embed(t) + self.y_emb(y)
        for blk in self.blocks:
            h = blk(h, c)
        sh, sc = self.ada_out(c).unsqueeze(1).chunk(2, dim=-1)
        h = self.out(self.n_out(h) * (1 + sc) + sh)
        g, p = self.size // self.patch, self.patch
        h = h.view(b, g, g, p, p, self.ch).permute(0, 5, 1, 3, 2, 4)
        return h.reshape(b, self.ch, self.size, self.size)


def dit(batch, device):
    m = DiT()

    def make():
        return ((torch.randn(batch, 4, 32, 32, device=device),
                 torch.randint(0, 1000, (batch,), device=device),
                 torch.randint(0, 1001, (batch,), device=device)),
                torch.randn(batch, 4, 32, 32, device=device))
    return m, make, _mse_loss, "adamw"


# -- eleventh round ------------------------------------------------------------
# Five models recorded after the tenth round: a wav2vec 2.0-base-shaped
# speech encoder (a strided Conv1d feature extractor on raw waveforms whose
# first layer makes 3,199 frames of 512, a grouped Conv1d of kernel 128 as
# position embedding, post-LN transformer layers), a DGCNN point-cloud
# classifier (k-nearest neighbours by matmul distances and topk, a gather of
# neighbour features, 1x1 Conv2d over points x neighbours, max over the
# neighbours), a DeepFM click-through model (one 2.6M-row embedding table
# with per-field offsets, the FM interaction by sums of squares), a
# TimeSformer-shaped video transformer (divided space-time attention: many
# short temporal sequences, then per-frame spatial attention) and an ODE-RNN
# (a fixed-step RK4 of an MLP in a Python loop between GRUCell updates:
# hundreds of small GEMMs per step).

def _attention(q, k, v):
    """Full (non-causal) attention of b, heads, t, dh queries, keys and
    values: SDPA where PyTorch has it, else the softmax written out."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v)
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])            # b, heads, t, t
    return s.softmax(-1).to(v.dtype) @ v                               # b, heads, t, dh


class Fp32GroupNorm(nn.GroupNorm):
    """GroupNorm computed in fp32 and cast back, as fairseq's wav2vec 2.0
    does (CPU autocast in 1.13 would otherwise hand it bf16 input with
    fp32 weights; CUDA autocast runs group_norm in fp32 anyway)."""

    def forward(self, x):
        return F.group_norm(x.float(), self.num_groups, self.weight, self.bias, self.eps).to(x.dtype)


class Wav2Vec2Layer(nn.Module):
    """wav2vec 2.0-base encoder layer, post-LN: self-attention, dropout,
    residual, LayerNorm; GELU feed-forward, dropout, residual, LayerNorm."""

    def __init__(self, d=768, heads=12, ff=3072, drop=0.1):
        super().__init__()
        self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.heads, self.drop = heads, drop

    def forward(self, x):                                   # b, 49, 768
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = self.o(_attention(q, k, v).transpose(1, 2).reshape(b, t, d))
        x = self.ln1(x + F.dropout(a, self.drop, self.training))
        y = self.fc2(F.dropout(F.gelu(self.fc1(x)), self.drop, self.training))
        return self.ln2(x + F.dropout(y, self.drop, self.training))


class Wav2Vec2(nn.Module):
    """wav2vec 2.0-base-shaped encoder on 1 s of 16 kHz audio: 7 Conv1d of
    512 without bias (kernels 10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2: 16,000
    samples -> 3,199 -> ... -> 49 frames), GroupNorm (a group per channel)
    on the first (in fp32), GELU; LayerNorm and a linear to 768; the convolutional
    position embedding (Conv1d kernel 128, 16 groups, padding 64, one frame
    trimmed, GELU) added; LayerNorm, 6 post-LN layers; a linear head of 32
    characters per frame.  The position conv's weight norm and the time
    masking of pre-training are left out."""

    def __init__(self, d=768, layers=6, classes=32, c=512, drop=0.1):
        super().__init__()
        kernels, strides = (10, 3, 3, 3, 3, 2, 2), (5, 2, 2, 2, 2, 2, 2)
        convs = []
        for i, (k, s) in enumerate(zip(kernels, strides)):
            convs.append(nn.Conv1d(1 if i == 0 else c, c, k, s, bias=False))
            if i == 0:
                convs.append(Fp32GroupNorm(c, c))
            convs.append(nn.GELU())
        self.features = nn.Sequential(*convs)
        self.fp_ln, self.fp = nn.LayerNorm(c), nn.Linear(c, d)
        self.pos_conv = nn.Conv1d(d, d, 128, padding=64, groups=16)
        self.ln = nn.LayerNorm(d)
        self.layers = nn.ModuleList(Wav2Vec2Layer(d, 12, 4 * d, drop) for _ in range(layers))
        self.head = nn.Linear(d, classes)
        self.drop = drop

    def forward(self, wav):                                 # b, 16000
        f = self.features(wav.unsqueeze(1)).transpose(1, 2)  # b, 1, 16000 -> b, 512, 49 -> b, 49, 512
        # LayerNorm in fp32, as CUDA autocast runs it (CPU autocast in 1.13
        # would hand it the convolutions' bf16 with fp32 weights)
        x = F.dropout(self.fp(self.fp_ln(f.float())), self.drop, self.training)   # b, 49, 768
        p = self.pos_conv(x.transpose(1, 2))[..., :-1]      # b, 768, 50 -> 49 (even kernel: one frame too many)
        x = x + F.gelu(p).transpose(1, 2).to(x.dtype)
        x = F.dropout(self.ln(x.float()), self.drop, self.training)   # fp32 residual stream, as above
        for layer in self.layers:
            x = layer(x)
        return self.head(x).transpose(1, 2)                 # b, 49, 32 -> b, 32, 49 (classes second for cross_entropy)


def wav2vec2(batch, device):
    m = Wav2Vec2()

    def make():
        # CTC stand-in: a random character per frame (49 frames of 20 ms)
        return (torch.randn(batch, 16000, device=device),
                torch.randint(0, 32, (batch, 49), device=device))
    return m, make, _cls_loss, "adamw"


def _edge_features(x, k):
    """DGCNN's graph feature of b, C, N points: the k nearest neighbours of
    each point by squared distance (-2 x^T x + |x|^2 terms, a b, N, N
    matmul, and topk, the point itself included as in the reference code),
    their features gathered by flat index, and cat(x_i, x_j - x_i) as
    b, 2C, N, k."""
    b, c, n = x.shape
    inner = -2 * torch.matmul(x.transpose(2, 1), x)          # b, N, N
    xx = (x * x).sum(dim=1, keepdim=True)                    # b, 1, N
    neg_dist = -xx - inner - xx.transpose(2, 1)              # b, N, N
    idx = neg_dist.topk(k=k, dim=-1)[1]                      # b, N, k
    idx = (idx + torch.arange(b, device=x.device).view(-1, 1, 1) * n).view(-1)   # b N k
    pts = x.transpose(2, 1).contiguous()                     # b, N, C
    nbr = pts.view(b * n, c)[idx].view(b, n, k, c)           # b, N, k, C
    ctr = pts.view(b, n, 1, c).expand(-1, -1, k, -1)         # b, N, k, C
    return torch.cat([ctr, nbr - ctr], dim=3).permute(0, 3, 1, 2).contiguous()   # b, 2C, N, k


class EdgeConv(nn.Module):
    """EdgeConv: a 1x1 Conv2d (no bias) - BatchNorm2d - LeakyReLU(0.2) on
    the b, 2C, N, k edge features, max over the k neighbours."""

    def __init__(self, cin, cout, k):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(2 * cin, cout, 1, bias=False), nn.BatchNorm2d(cout),
                                 nn.LeakyReLU(0.2))
        self.k = k

    def forward(self, x):                                   # b, C, N
        return self.net(_edge_features(x, self.k)).max(dim=-1)[0]   # b, cout, N, k -> b, cout, N


class DGCNN(nn.Module):
    """DGCNN classifier (ModelNet40): 4 EdgeConv of 64, 64, 128, 256 with
    k = 20, the graph rebuilt on each layer's features; their outputs
    concatenated (512) and a 1x1 Conv1d-BN-LeakyReLU to 1024; global max
    and mean pooling (2048); an MLP 512-256 with BatchNorm, LeakyReLU and
    dropout 0.5, to 40 classes."""

    def __init__(self, k=20, classes=40):
        super().__init__()
        self.edges = nn.ModuleList([EdgeConv(3, 64, k), EdgeConv(64, 64, k),
                                    EdgeConv(64, 128, k), EdgeConv(128, 256, k)])
        self.conv5 = nn.Sequential(nn.Conv1d(512, 1024, 1, bias=False), nn.BatchNorm1d(1024),
                                   nn.LeakyReLU(0.2))
        self.mlp = nn.Sequential(nn.Linear(2048, 512, bias=False), nn.BatchNorm1d(512), nn.LeakyReLU(0.2),
                                 nn.Dropout(0.5), nn.Linear(512, 256), nn.BatchNorm1d(256),
                                 nn.LeakyReLU(0.2), nn.Dropout(0.5), nn.Linear(256, classes))

    def forward(self, x):                                   # b, 3, 1024
        feats = []
        for ec in self.edges:
            x = ec(x)
            feats.append(x)                                 # b, 64 / 64 / 128 / 256, 1024
        x = self.conv5(torch.cat(feats, dim=1))             # b, 512 -> 1024, 1024
        return self.mlp(torch.cat([x.max(dim=-1)[0], x.mean(dim=-1)], dim=1))   # b, 2048 -> 40


def dgcnn(batch, device):
    return DGCNN(), _points(batch, device), _cls_loss, "sgd_momentum"


class DeepFM(nn.Module):
    """DeepFM on Criteo-shaped inputs: 26 categorical fields of 100,000 ids
    each, held in one table of 2.6M x 16 (ids offset by 100,000 per field:
    one gather for all fields) and one of 2.6M x 1 for the first-order
    weights, plus 13 dense features; logit = first order (the gathered
    weights summed, plus a linear of the dense features) + the FM
    second-order term 0.5 ((sum_f e_f)^2 - sum_f e_f^2) summed over the
    16 dims + a deep MLP 400-400-400 (ReLU, dropout) on the flattened
    embeddings and the dense features."""

    def __init__(self, fields=26, vocab=100000, d=16, dense=13, hidden=(400, 400, 400), drop=0.2):
        super().__init__()
        self.emb = nn.Embedding(fields * vocab, d)          # 2.6M, 16
        self.w1 = nn.Embedding(fields * vocab, 1)           # 2.6M, 1
        self.dense1 = nn.Linear(dense, 1)
        self.register_buffer("offsets", torch.arange(fields) * vocab, persistent=False)   # 26
        layers, c = [], fields * d + dense
        for h in hidden:
            layers += [nn.Linear(c, h), nn.ReLU(), nn.Dropout(drop)]
            c = h
        self.deep = nn.Sequential(*layers, nn.Linear(c, 1))

    def forward(self, inp):
        dense, cat = inp                                    # b, 13; b, 26
        ids = cat + self.offsets                            # b, 26
        e = self.emb(ids)                                   # b, 26, 16
        first = self.w1(ids).sum(dim=(1, 2)) + self.dense1(dense).squeeze(1)   # b
        s = e.sum(dim=1)                                    # b, 16
        fm = 0.5 * (s * s - (e * e).sum(dim=1)).sum(dim=1)  # b
        deep = self.deep(torch.cat([e.flatten(1), dense.to(e.dtype)], dim=1)).squeeze(1)   # b, 429 -> b
        return first + fm + deep                            # b


def deepfm(batch, device):
    return DeepFM(), _tabular(batch, 13, 26, 100000, device), _bce_loss, "adamw"


class MHSA(nn.Module):
    """Multi-head self-attention of b, t, d tokens (qkv linear, proj)."""

    def __init__(self, d, heads):
        super().__init__()
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.heads = heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        return self.proj(_attention(q, k, v).transpose(1, 2).reshape(b, t, d))


class DividedBlock(nn.Module):
    """TimeSformer's divided space-time block: temporal attention over the
    T frames of each patch position (its own LayerNorm, attention and a
    temporal_fc linear, the class token left out), then spatial attention
    over the patches of each frame with the class token copied into every
    frame and its T outputs averaged, then the MLP over all tokens."""

    def __init__(self, d, heads, mlp):
        super().__init__()
        self.tnorm, self.tattn, self.tfc = nn.LayerNorm(d, eps=1e-6), MHSA(d, heads), nn.Linear(d, d)
        self.norm1, self.attn = nn.LayerNorm(d, eps=1e-6), MHSA(d, heads)
        self.norm2 = nn.LayerNorm(d, eps=1e-6)
        self.fc1, self.fc2 = nn.Linear(d, mlp), nn.Linear(mlp, d)

    def forward(self, cls, x):                              # b, 1, d; b, T, N, d
        b, t, n, d = x.shape
        xt = x.transpose(1, 2).reshape(b * n, t, d)         # b N, 8, 384: temporal sequences
        rt = self.tfc(self.tattn(self.tnorm(xt)))
        x = x + rt.view(b, n, t, d).transpose(1, 2).to(x.dtype)   # b, 8, 196, 384
        xs = torch.cat([cls.expand(-1, t, -1).reshape(b * t, 1, d),
                        x.reshape(b * t, n, d)], dim=1)     # b T, 197, 384: spatial sequences
        rs = self.attn(self.norm1(xs)).view(b, t, n + 1, d)
        cls = cls + rs[:, :, :1].mean(dim=1).to(cls.dtype)  # b, 1, 384
        x = x + rs[:, :, 1:].to(x.dtype)                    # b, 8, 196, 384
        y = torch.cat([cls, x.reshape(b, t * n, d)], dim=1)  # b, 1 + T N, 384
        y = y + self.fc2(F.gelu(self.fc1(self.norm2(y)))).to(y.dtype)
        return y[:, :1], y[:, 1:].view(b, t, n, d)


class TimeSformer(nn.Module):
    """TimeSformer-shaped: 8 frames of 224x224 cut into 16x16 patches (a
    Conv2d per frame: 196 tokens of 384), a learned space position
    embedding (197, with the class token's) and a time embedding (8),
    6 divided space-time blocks of 6 heads and MLP 1536, a final LayerNorm
    and a 400-class head on the class token."""

    def __init__(self, frames=8, size=224, patch=16, d=384, depth=6, heads=6, mlp=1536, classes=400):
        super().__init__()
        n = (size // patch) ** 2
        self.embed = nn.Conv2d(3, d, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.zeros(1, n + 1, d))
        self.time = nn.Parameter(torch.zeros(1, frames, 1, d))
        nn.init.trunc_normal_(self.pos, std=0.02)
        nn.init.trunc_normal_(self.cls, std=0.02)
        self.blocks = nn.ModuleList(DividedBlock(d, heads, mlp) for _ in range(depth))
        self.norm = nn.LayerNorm(d, eps=1e-6)
        self.head = nn.Linear(d, classes)

    def forward(self, video):                               # b, 8, 3, 224, 224
        b, t = video.shape[:2]
        x = self.embed(video.flatten(0, 1)).flatten(2).transpose(1, 2)   # b T, 384, 14, 14 -> b T, 196, 384
        x = (x + self.pos[:, 1:]).view(b, t, -1, x.shape[-1]) + self.time   # b, 8, 196, 384
        cls = (self.cls + self.pos[:, :1]).expand(b, -1, -1)               # b, 1, 384
        for blk in self.blocks:
            cls, x = blk(cls, x)
        return self.head(self.norm(cls.squeeze(1)))         # b, 400


def timesformer(batch, device):
    m = TimeSformer()

    def make():
        return (torch.randn(batch, 8, 3, 224, 224, device=device),
                torch.randint(0, 400, (batch,), device=device))
    return m, make, _cls_loss, "adamw"


class ODERNN(nn.Module):
    """ODE-RNN (Rubanova et al. 2019) classifier: before each of the 50
    observations the hidden state of 256 is carried across the time gap
    by dh/dt = f(h), f an MLP 256-256-256 with tanh, integrated by RK4 in
    4 fixed steps of gap / 4 (a Python loop: 16 evaluations of f per
    observation); then a GRUCell takes the observation's 32 features.
    A linear from the last state to 10 classes."""

    def __init__(self, features=32, hidden=256, classes=10, steps=4):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, hidden))
        self.cell = nn.GRUCell(features, hidden)
        self.out = nn.Linear(hidden, classes)
        self.hidden, self.steps = hidden, steps

    def rk4(self, h, gap):
        dt = gap / self.steps                               # 0-d tensor: no host sync
        for _ in range(self.steps):
            k1 = self.f(h)
            k2 = self.f(h + 0.5 * dt * k1)
            k3 = self.f(h + 0.5 * dt * k2)
            k4 = self.f(h + dt * k3)
            h = h + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return h

    def forward(self, inp):
        x, gaps = inp                                       # b, 50, 32; 50 (one set of gaps for the batch)
        h = x.new_zeros(x.shape[0], self.hidden)            # b, 256
        for xt, gap in zip(x.unbind(1), gaps.unbind(0)):
            h = self.rk4(h, gap)
            # under autocast the cell's output may be bf16; keep the state
            # in the input's dtype so that every step sees the same types
            h = self.cell(xt, h).to(x.dtype)
        return self.out(h)                                  # b, 10


def odernn(batch, device):
    m = ODERNN()

    def make():
        # irregular sampling: gaps between 0.05 and 0.5, drawn per batch
        return ((torch.randn(batch, 50, 32, device=device),
                 0.05 + 0.45 * torch.rand(50, device=device)),
                torch.randint(0, 10, (batch,), device=device))
    return m, make, _cls_loss, "adamw"


# -- twelfth round -------------------------------------------------------------
# Models recorded after the eleventh round: an RWKV-shaped language model
# (token shift, and the WKV recurrence of its time mixing run in a Python
# loop over the sequence: a few dozen tiny elementwise kernels per step and
# layer), a Hyena-shaped long-convolution language model (filters made by
# an MLP of sines over positions, causal convolutions over 1,024 tokens by
# rfft and irfft, gating products), a V-Net (5x5x5 Conv3d, strided 2x2x2
# Conv3d down and ConvTranspose3d up, InstanceNorm3d, PReLU), an AutoInt
# recommender (self-attention over 39 field embeddings written out as
# matmul and softmax, thousands of rows per batch), a ConvMixer (a 7x7
# stride-7 patch embedding, then depthwise 9x9 and pointwise convolutions
# at one resolution, BatchNorm2d) and a DeepONet (two tanh MLPs, branch
# and trunk, joined by a dot product).

class RWKVTimeMix(nn.Module):
    """RWKV-4 time mixing: token shift (each position mixed with the one
    before it by learned per-channel ratios) into key, value and
    receptance (512 -> 512 each, no bias); the WKV recurrence over the
    sequence in a Python loop, in fp32 and in RWKV's numerically stable
    form (decayed sums aa and bb beside their running maximum exponent
    pp; per step, on b x 512: maximum, exp, mul, add, div); the sigmoid of
    the receptance gates it before the output projection."""

    def __init__(self, d, layer, layers):
        super().__init__()
        r01, r10 = layer / (layers - 1), 1.0 - layer / layers
        h = torch.arange(d, dtype=torch.float32)
        # as RWKV-4 initialises them: decays spread over channels (w =
        # -exp(time_decay)), a zigzag bonus for the current token, mixing
        # ratios rising over channels
        self.time_decay = nn.Parameter(-5 + 8 * (h / (d - 1)) ** (0.7 + 1.3 * r01))    # 512
        self.time_first = nn.Parameter(math.log(0.3) + 0.5 * ((h + 1) % 3 - 1))         # 512
        x = (h / d).view(1, 1, d)
        self.time_mix_k = nn.Parameter(x ** r10)                                         # 1, 1, 512
        self.time_mix_v = nn.Parameter(x ** r10 + 0.3 * r01)
        self.time_mix_r = nn.Parameter(x ** (0.5 * r10))
        self.key, self.value, self.receptance, self.output = (nn.Linear(d, d, bias=False) for _ in range(4))

    def forward(self, x):                                   # b, T, 512 (fp32 residual stream, normed)
        xx = F.pad(x, (0, 0, 1, -1))                        # b, T, 512: the previous token's, zeros at t = 0
        xk = x * self.time_mix_k + xx * (1 - self.time_mix_k)
        xv = x * self.time_mix_v + xx * (1 - self.time_mix_v)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        k, v = self.key(xk).float(), self.value(xv).float()   # b, T, 512 each
        r = torch.sigmoid(self.receptance(xr))              # b, T, 512
        w, u = -torch.exp(self.time_decay.float()), self.time_first.float()   # 512 each
        b, _, d = k.shape
        aa, bb = k.new_zeros(b, d), k.new_zeros(b, d)       # b, 512
        pp = k.new_full((b, d), -1e38)
        ys = []
        # unbind: one backward node for all the steps (see MambaBlock)
        for kt, vt in zip(k.unbind(1), v.unbind(1)):        # T x (b, 512)
            ww = u + kt
            p = torch.maximum(pp, ww)
            e1, e2 = torch.exp(pp - p), torch.exp(ww - p)
            ys.append((e1 * aa + e2 * vt) / (e1 * bb + e2))   # b, 512
            ww = pp + w
            p = torch.maximum(ww, kt)
            e1, e2 = torch.exp(ww - p), torch.exp(kt - p)
            aa, bb, pp = e1 * aa + e2 * vt, e1 * bb + e2, p
        return self.output(r * torch.stack(ys, dim=1))     # b, T, 512


class RWKVChannelMix(nn.Module):
    """RWKV-4 channel mixing: token shift into key and receptance, a
    squared-ReLU MLP (512 -> 2048 -> 512, no bias) gated by the sigmoid of
    the receptance."""

    def __init__(self, d, layer, layers, hidden):
        super().__init__()
        x = (torch.arange(d, dtype=torch.float32) / d).view(1, 1, d)
        r10 = 1.0 - layer / layers
        self.time_mix_k = nn.Parameter(x ** r10)            # 1, 1, 512
        self.time_mix_r = nn.Parameter(x ** r10)
        self.key = nn.Linear(d, hidden, bias=False)
        self.receptance = nn.Linear(d, d, bias=False)
        self.value = nn.Linear(hidden, d, bias=False)

    def forward(self, x):                                   # b, T, 512
        xx = F.pad(x, (0, 0, 1, -1))
        xk = x * self.time_mix_k + xx * (1 - self.time_mix_k)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        k = torch.square(torch.relu(self.key(xk)))          # b, T, 2048
        return torch.sigmoid(self.receptance(xr)) * self.value(k)   # b, T, 512


class RWKVBlock(nn.Module):
    def __init__(self, d, layer, layers):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.att = RWKVTimeMix(d, layer, layers)
        self.ffn = RWKVChannelMix(d, layer, layers, 4 * d)

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.ffn(self.ln2(x))


class RWKV(nn.Module):
    """RWKV-4-shaped language model: token embedding (8,192 x 512), a
    LayerNorm on it (RWKV's ln0), 4 blocks of LayerNorm + time mixing and
    LayerNorm + channel mixing with residuals, a final LayerNorm and an
    untied vocabulary head."""

    def __init__(self, vocab=8192, d=512, layers=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.ln0 = nn.LayerNorm(d)
        self.blocks = nn.ModuleList(RWKVBlock(d, i, layers) for i in range(layers))
        self.ln_out = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):                                 # b, 64
        x = self.ln0(self.emb(idx))                         # b, 64, 512
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_out(x))                    # b, 64, 8192


def rwkv(batch, device):
    return RWKV(), _tokens(batch, 64, 8192, device), _lm_loss, "adamw"


class HyenaSin(nn.Module):
    """Hyena's filter activation: sin(freq x), a learned frequency per
    feature."""

    def __init__(self, d, w=1.0):
        super().__init__()
        self.freq = nn.Parameter(w * torch.ones(1, d))

    def forward(self, x):
        return torch.sin(self.freq * x)


class HyenaFilter(nn.Module):
    """Hyena's implicit long filter, one per channel and as long as the
    sequence: positional features of the L positions (t in [0, 1], and the
    cosines and sines of 16 frequencies: 33), an MLP 33 -> 64 -> 64 -> 64
    -> d with sine activations, times an exponential decay over t (one rate
    per channel, fast to slow).  Also holds the per-channel skip D."""

    def __init__(self, d, seq, emb=33, width=64):
        super().__init__()
        bands = (emb - 1) // 2
        t = torch.linspace(0, 1, seq).unsqueeze(1)                      # L, 1
        w = 2 * math.pi * torch.arange(seq, dtype=torch.float32).unsqueeze(1) / seq
        f = torch.linspace(1e-4, bands - 1, bands).unsqueeze(0)         # 1, 16
        self.register_buffer("z", torch.cat([t, torch.cos(f * w), -torch.sin(f * w)], dim=1),
                             persistent=False)                          # L, 33
        self.register_buffer("t", t.view(1, seq), persistent=False)    # 1, L
        self.mlp = nn.Sequential(nn.Linear(emb, width), HyenaSin(width),
                                 nn.Linear(width, width), HyenaSin(width),
                                 nn.Linear(width, width), HyenaSin(width),
                                 nn.Linear(width, d, bias=False))
        # decay to 1e-2 between 0.3 and 1.5 of the sequence, as Hyena's
        # ExponentialModulation
        fast, slow = math.log(1e-2) / 0.3, math.log(1e-2) / 1.5
        self.register_buffer("deltas", torch.linspace(slow, fast, d).unsqueeze(1), persistent=False)   # d, 1
        self.bias = nn.Parameter(torch.randn(d))            # d: the skip D

    def forward(self):
        h = self.mlp(self.z).transpose(0, 1)                # L, 33 -> L, d -> d, L
        return h * torch.exp(-self.t * self.deltas.abs())  # d, L


def _fftconv(u, k, skip):
    """Causal convolution of b, d, L signals with d, L filters by FFTs of
    length 2L (Hyena's fftconv), plus the skip u x D; in fp32 (cuFFT has no
    bf16)."""
    n = 2 * u.shape[-1]
    k_f = torch.fft.rfft(k, n=n) / n                        # d, L + 1
    u_f = torch.fft.rfft(u, n=n)                            # b, d, L + 1
    y = torch.fft.irfft(u_f * k_f, n=n, norm="forward")[..., :u.shape[-1]]   # b, d, 2L -> b, d, L
    return y + u * skip.unsqueeze(-1)


class HyenaOperator(nn.Module):
    """Hyena operator of order 2: an input projection to 3 x d, a short
    causal depthwise Conv1d (kernel 3) over the 3 d channels, split into
    two gates x0, x1 and a value v; v x1 convolved with the implicit long
    filter (by FFT), times x0, an output projection."""

    def __init__(self, d, seq):
        super().__init__()
        self.in_proj = nn.Linear(d, 3 * d)
        self.short = nn.Conv1d(3 * d, 3 * d, 3, padding=2, groups=3 * d)
        self.filter = HyenaFilter(d, seq)
        self.out_proj = nn.Linear(d, d)
        self.d = d

    def forward(self, x):                                   # b, L, 256
        L = x.shape[1]
        u = self.short(self.in_proj(x).transpose(1, 2))[..., :L]   # b, 768, L + 2 -> L (causal)
        x0, x1, v = u.split(self.d, dim=1)                  # b, 256, L each
        y = _fftconv((v * x1).float(), self.filter()[:, :L].float(), self.filter.bias.float())   # b, 256, L
        return self.out_proj((y * x0).transpose(1, 2))    # b, L, 256


class HyenaBlock(nn.Module):
    def __init__(self, d, seq):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.mixer = HyenaOperator(d, seq)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.mixer(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class HyenaLM(nn.Module):
    """Hyena-shaped language model over 1,024 tokens: token embedding
    (4,096 x 256, no position embedding: the filters are positional), 4
    pre-LN blocks of a Hyena operator and a GELU MLP (256 -> 1024 -> 256),
    a final LayerNorm and an untied head."""

    def __init__(self, vocab=4096, d=256, layers=4, seq=1024):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(HyenaBlock(d, seq) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):                                 # b, 1024
        x = self.emb(idx)                                   # b, 1024, 256
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))                        # b, 1024, 4096


def hyena(batch, device):
    return HyenaLM(), _tokens(batch, 1024, 4096, device), _lm_loss, "adamw"


class _VNetConv(nn.Module):
    """V-Net's convolution: 5x5x5 Conv3d (size kept), InstanceNorm3d
    (affine), PReLU with a slope per channel."""

    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv3d(c, c, 5, padding=2)
        self.norm = nn.InstanceNorm3d(c, affine=True)
        self.act = nn.PReLU(c)

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class _VNetDown(nn.Module):
    """A down stage: a 2x2x2 stride-2 Conv3d doubling the channels (norm,
    PReLU), then `convs` 5x5x5 convolutions with a residual around them
    and a PReLU."""

    def __init__(self, cin, convs):
        super().__init__()
        c = 2 * cin
        self.down = nn.Conv3d(cin, c, 2, stride=2)
        self.norm, self.act = nn.InstanceNorm3d(c, affine=True), nn.PReLU(c)
        self.convs = nn.Sequential(*[_VNetConv(c) for _ in range(convs)])
        self.out = nn.PReLU(c)

    def forward(self, x):
        d = self.act(self.norm(self.down(x)))
        return self.out(self.convs(d) + d)


class _VNetUp(nn.Module):
    """An up stage: a 2x2x2 stride-2 ConvTranspose3d to cout / 2 (norm,
    PReLU), concatenated with the skip of cout / 2 channels, then `convs`
    5x5x5 convolutions with a residual and a PReLU."""

    def __init__(self, cin, cout, convs):
        super().__init__()
        self.up = nn.ConvTranspose3d(cin, cout // 2, 2, stride=2)
        self.norm, self.act = nn.InstanceNorm3d(cout // 2, affine=True), nn.PReLU(cout // 2)
        self.convs = nn.Sequential(*[_VNetConv(cout) for _ in range(convs)])
        self.out = nn.PReLU(cout)

    def forward(self, x, skip):
        u = torch.cat([self.act(self.norm(self.up(x))), skip], dim=1)
        return self.out(self.convs(u) + u)


class VNet(nn.Module):
    """V-Net on 1 x 64^3 volumes, laid out as the reference PyTorch port:
    a 5x5x5 stem to 16 channels (the input added to every channel), down
    stages to 32, 64, 128 and 256 channels (32^3 .. 4^3) with 1, 2, 3 and
    2 convolutions, up stages back to 256, 128, 64 and 32 channels with 2,
    2, 1 and 1, skips concatenated, a 1x1x1 head to 2 classes per voxel.
    InstanceNorm3d in place of the original's BatchNorm3d."""

    def __init__(self, cin=1, classes=2):
        super().__init__()
        self.stem = nn.Conv3d(cin, 16, 5, padding=2)
        self.stem_norm, self.stem_act = nn.InstanceNorm3d(16, affine=True), nn.PReLU(16)
        self.down = nn.ModuleList([_VNetDown(16, 1), _VNetDown(32, 2), _VNetDown(64, 3), _VNetDown(128, 2)])
        self.up = nn.ModuleList([_VNetUp(256, 256, 2), _VNetUp(256, 128, 2), _VNetUp(128, 64, 1),
                                 _VNetUp(64, 32, 1)])
        self.head = nn.Conv3d(32, classes, 1)

    def forward(self, x):                                   # b, 1, 64, 64, 64
        h = self.stem_act(self.stem_norm(self.stem(x)) + x)   # b, 16, 64^3
        skips = [h]
        for down in self.down:
            h = down(h)                                     # 32 x 32^3, 64 x 16^3, 128 x 8^3, 256 x 4^3
            skips.append(h)
        skips.pop()
        for up in self.up:
            h = up(h, skips.pop())                          # 256 x 8^3, 128 x 16^3, 64 x 32^3, 32 x 64^3
        return self.head(h)                                 # b, 2, 64, 64, 64


def vnet(batch, device):
    m = VNet()

    def make():
        return (torch.randn(batch, 1, 64, 64, 64, device=device),
                torch.randint(0, 2, (batch, 64, 64, 64), device=device))
    return m, make, _cls_loss, "sgd_momentum"


class AutoIntLayer(nn.Module):
    """AutoInt's interacting layer: per head, queries, keys and values of
    32 from each field's embedding (no bias), a softmax over the fields of
    the unscaled query-key products (as in the paper), the weighted values
    of the heads concatenated, plus a linear projection of the input (the
    residual), ReLU.  Written out as matmul and softmax."""

    def __init__(self, din, d=32, heads=2):
        super().__init__()
        self.q, self.k, self.v, self.res = (nn.Linear(din, heads * d, bias=False) for _ in range(4))
        self.heads, self.d = heads, d

    def forward(self, x):                                   # b, 39, din
        b, f, _ = x.shape
        q = self.q(x).view(b, f, self.heads, self.d).transpose(1, 2)   # b, 2, 39, 32
        k = self.k(x).view(b, f, self.heads, self.d).transpose(1, 2)
        v = self.v(x).view(b, f, self.heads, self.d).transpose(1, 2)
        w = torch.softmax(q @ k.transpose(2, 3), dim=-1)   # b, 2, 39, 39
        a = (w.to(v.dtype) @ v).transpose(1, 2).reshape(b, f, self.heads * self.d)   # b, 39, 64
        return F.relu(a + self.res(x))                      # b, 39, 64


class AutoInt(nn.Module):
    """AutoInt: 39 categorical fields (Criteo's count, every feature taken
    as categorical here) embedded 16 wide from one table of 1,000,000 rows
    (ids offset by 25,641 per field: one gather for all fields), 3
    interacting layers of 2 heads of 32 (16 -> 64 -> 64 -> 64), the 39 x 64
    outputs flattened into a linear logit."""

    def __init__(self, fields=39, rows=1000000, d=16, layers=3, heads=2, d_attn=32):
        super().__init__()
        self.emb = nn.Embedding(rows, d)                    # 1M, 16
        self.register_buffer("offsets", torch.arange(fields) * (rows // fields), persistent=False)   # 39
        dims = [d] + [heads * d_attn] * layers
        self.layers = nn.ModuleList(AutoIntLayer(a, d_attn, heads) for a in dims[:-1])
        self.out = nn.Linear(fields * dims[-1], 1)

    def forward(self, inp):
        _, cat = inp                                        # b, 0 (no dense features); b, 39
        x = self.emb(cat + self.offsets)                    # b, 39, 16
        for layer in self.layers:
            x = layer(x)                                    # b, 39, 64
        return self.out(x.flatten(1)).squeeze(1)            # b, 2496 -> b


def autoint(batch, device):
    return AutoInt(), _tabular(batch, 0, 39, 1000000 // 39, device), _bce_loss, "adamw"


class ConvMixerBlock(nn.Module):
    """ConvMixer's block: a residual depthwise Conv2d (kernel 9, size kept)
    + GELU + BatchNorm2d, then a pointwise 1x1 Conv2d + GELU +
    BatchNorm2d."""

    def __init__(self, d, k):
        super().__init__()
        self.dw, self.bn1 = nn.Conv2d(d, d, k, padding=k // 2, groups=d), nn.BatchNorm2d(d)
        self.pw, self.bn2 = nn.Conv2d(d, d, 1), nn.BatchNorm2d(d)

    def forward(self, x):                                   # b, 512, 32, 32
        x = x + self.bn1(F.gelu(self.dw(x)))
        return self.bn2(F.gelu(self.pw(x)))


class ConvMixer(nn.Module):
    """ConvMixer-512/8 at 224x224: a patch embedding Conv2d of kernel and
    stride 7 to 512 channels (32x32) + GELU + BatchNorm2d, 8 blocks at that
    resolution, a global average pool and a linear to 1,000 classes."""

    def __init__(self, d=512, depth=8, k=9, patch=7, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, d, patch, stride=patch), nn.GELU(), nn.BatchNorm2d(d))
        self.blocks = nn.Sequential(*[ConvMixerBlock(d, k) for _ in range(depth)])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(d, classes)

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.blocks(self.stem(x))                       # b, 512, 32, 32
        return self.head(self.pool(x).flatten(1))           # b, 1000


def convmixer(batch, device):
    return ConvMixer(), _images(batch, device), _cls_loss, "adamw"


def _tanh_mlp(dims, last):
    """Linear layers through dims with tanh between them (and after the
    last when `last`)."""
    layers = []
    for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
        layers.append(nn.Linear(a, b))
        if last or i < len(dims) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class DeepONet(nn.Module):
    """DeepONet for a 1-D operator (DeepXDE's layout): a branch MLP over
    the input function at 100 sensors (100 -> 4 x 256 -> 128, tanh), a
    trunk MLP over each sample's 200 query coordinates (1 -> 4 x 256 ->
    128, tanh, also on its output), the output at each query the dot
    product of the 128 branch and trunk features (bmm) plus a bias."""

    def __init__(self, sensors=100, dim=1, width=256, depth=4, basis=128):
        super().__init__()
        self.branch = _tanh_mlp([sensors] + [width] * depth + [basis], False)
        self.trunk = _tanh_mlp([dim] + [width] * depth + [basis], True)
        self.b0 = nn.Parameter(torch.zeros(1))

    def forward(self, inp):
        u, y = inp                                          # b, 100; b, 200, 1
        br = self.branch(u)                                 # b, 128
        tr = self.trunk(y)                                  # b, 200, 128
        return torch.bmm(tr, br.unsqueeze(2).to(tr.dtype)).squeeze(2) + self.b0   # b, 200


def deeponet(batch, device):
    m = DeepONet()

    def make():
        return ((torch.randn(batch, 100, device=device),
                 torch.rand(batch, 200, 1, device=device)),
                torch.randn(batch, 200, device=device))
    return m, make, _mse_loss, "adamw"


# -- thirteenth round ----------------------------------------------------------
# Models recorded after the twelfth round: an MPNN (Gilmer et al.'s
# edge-network message passing over all-pairs molecular graphs: a 64 x 64
# matrix per edge applied by bmm, index_add_ to the atoms, a GRUCell
# update, a Set2Set readout of LSTMCell steps), a BiLSTM-CRF tagger (the
# CRF's forward algorithm in a Python loop over 64 steps: a logsumexp over
# b x 20 x 20 per step, the gold path by gather), a PointNet++ classifier
# (farthest point sampling as a Python loop of hundreds of tiny steps, ball
# query by cdist and topk, grouped 1x1 Conv2d, max over neighbours), a
# TabNet (ghost batch norm over virtual batches of 128: dozens of small
# BatchNorm1d calls per layer, sparsemax by sort and cumsum over 5
# sequential steps) and a HiFi-GAN-V1-shaped vocoder generator
# (ConvTranspose1d upsampling by 256, dilated Conv1d residual blocks of
# kernels 3, 7 and 11 over up to 8,192 samples).

class Set2Set(nn.Module):
    """Set2Set readout (Vinyals et al.), as PyTorch Geometric's: per
    processing step an LSTMCell (2 x 64 -> 64) on the previous q*, each
    atom scored by its dot product with the query, a softmax over the atoms
    of each molecule, the attention-weighted atoms summed per molecule by
    index_add_, q* = cat(query, readout)."""

    def __init__(self, d, steps):
        super().__init__()
        self.cell = nn.LSTMCell(2 * d, d)
        self.d, self.steps = d, steps

    def forward(self, x, mol, n_mol):                       # n, 64; n; M
        h = x.new_zeros(n_mol, self.d)                      # M, 64
        c = torch.zeros_like(h)
        q_star = x.new_zeros(n_mol, 2 * self.d)             # M, 128
        for _ in range(self.steps):
            # under autocast the cell's outputs may be bf16; keep the state
            # in the atoms' dtype so that every step sees the same types
            h, c = (t.to(x.dtype) for t in self.cell(q_star, (h, c)))   # M, 64 each
            e = (x * h.index_select(0, mol)).sum(1)         # n
            # every molecule has the same number of atoms: the softmax per
            # molecule is one over the rows of an M x atoms view
            a = e.view(n_mol, -1).softmax(1).view(-1, 1).to(x.dtype)    # n, 1
            r = x.new_zeros(n_mol, self.d).index_add_(0, mol, a * x)    # M, 64
            q_star = torch.cat([h, r], 1)                   # M, 128
        return q_star


class MPNN(nn.Module):
    """MPNN (Gilmer et al. 2017, edge network and Set2Set, laid out as
    PyTorch Geometric's QM9 example): 11 atom features through a linear to
    64 and ReLU; each ordered pair of a molecule's distinct atoms an edge,
    its 16 features the distance on 16 Gaussians (0 to 10 A); an edge
    network (16 -> 128, ReLU, -> 64 x 64) giving each edge a matrix, which
    multiplies the source atom's features (bmm of E x 1 x 64 by E x 64 x
    64); the messages summed to their targets by index_add_, plus a root
    linear and a bias, ReLU; a GRUCell update; 3 steps sharing their
    weights; a Set2Set readout of 3 LSTMCell steps and an MLP 128 -> 64 ->
    1.  The edge matrices depend only on the edge features and the shared
    weights, so they are made once per forward, not once per step."""

    def __init__(self, fin=11, d=64, edge=16, hidden=128, steps=3, s2s=3, cutoff=10.0):
        super().__init__()
        self.lin0 = nn.Linear(fin, d)
        self.register_buffer("centers", torch.linspace(0.0, cutoff, edge), persistent=False)   # 16
        self.gamma = 0.5 / (cutoff / (edge - 1)) ** 2
        self.edge_net = nn.Sequential(nn.Linear(edge, hidden), nn.ReLU(), nn.Linear(hidden, d * d))
        self.root = nn.Linear(d, d, bias=False)
        self.bias = nn.Parameter(torch.zeros(d))
        self.gru = nn.GRUCell(d, d)
        self.set2set = Set2Set(d, s2s)
        self.head = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, 1))
        self.d, self.steps = d, steps

    def forward(self, inp):
        x, pos, src, dst, mol = inp                         # M, 32, 11; M, 32, 3; E; E; n = 32 M
        n_mol = x.shape[0]
        x, pos = x.reshape(-1, x.shape[2]), pos.reshape(-1, 3)   # n, 11; n, 3
        dist = (pos.index_select(0, src) - pos.index_select(0, dst)).norm(dim=1)   # E
        ea = torch.exp(-self.gamma * (dist.unsqueeze(1) - self.centers) ** 2)      # E, 1 - 16 -> E, 16
        A = self.edge_net(ea).view(-1, self.d, self.d)      # E, 64, 64
        h = F.relu(self.lin0(x))                            # n, 64
        for _ in range(self.steps):
            msg = torch.bmm(h.index_select(0, src).unsqueeze(1), A).squeeze(1)   # E, 1, 64 @ E, 64, 64 -> E, 64
            agg = msg.new_zeros(h.shape[0], self.d).index_add_(0, dst, msg)                  # n, 64
            m = F.relu(agg + self.root(h) + self.bias)      # n, 64
            h = self.gru(m, h).to(x.dtype)                  # n, 64 (kept in fp32, as Set2Set's state)
        return self.head(self.set2set(h, mol, n_mol)).squeeze(1)   # M, 128 -> M


def mpnn(batch, device):
    """batch: molecules of 32 atoms, every ordered pair of distinct atoms
    of a molecule an edge (32 x 31 = 992 per molecule), as schnet's."""
    m = MPNN()
    atoms = 32

    def make():
        src, dst, mol = _all_pairs(batch, atoms, device)
        # QM9's 11 atom features, atoms spread over a few angstroms
        return ((torch.randn(batch, atoms, 11, device=device),
                 1.5 * torch.randn(batch, atoms, 3, device=device), src, dst, mol),
                torch.randn(batch, device=device))
    return m, make, _mse_loss, "adamw"


class BiLSTMCRF(nn.Module):
    """BiLSTM-CRF tagger (Lample et al. 2016, words only): word embedding
    20,000 x 100 with dropout 0.5, a bidirectional LSTM of 256 per
    direction over 64 tokens, a linear to 20 tags (the emissions), and a
    linear-chain CRF (20 x 20 transitions, start and end scores).  The
    model takes the gold tags with the tokens and returns each sentence's
    negative log-likelihood: the log partition by the forward algorithm (a
    Python loop over the steps, per step a logsumexp over b x 20 x 20, in
    fp32) less the gold path's score (emissions and transitions by
    gather).  Every sentence is full length: no mask."""

    def __init__(self, vocab=20000, emb=100, hidden=256, tags=20, drop=0.5):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.drop = nn.Dropout(drop)
        self.rnn = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * hidden, tags)
        self.trans = nn.Parameter(torch.empty(tags, tags).uniform_(-0.1, 0.1))   # 20, 20: from i to j
        self.start = nn.Parameter(torch.empty(tags).uniform_(-0.1, 0.1))         # 20
        self.end = nn.Parameter(torch.empty(tags).uniform_(-0.1, 0.1))           # 20
        self.tags = tags

    def forward(self, inp):
        idx, tags = inp                                     # b, 64; b, 64
        b, t = idx.shape
        h, _ = self.rnn(self.drop(self.emb(idx)))           # b, 64, 512
        em = self.proj(h).float()                           # b, 64, 20
        trans, start, end = self.trans.float(), self.start.float(), self.end.float()
        # unbind: one backward node for all the steps (see MambaBlock)
        ems = em.unbind(1)                                  # 64 x (b, 20)
        alpha = start + ems[0]                              # b, 20
        for e in ems[1:]:
            # b, 20, 1 + 20, 20 + b, 1, 20 -> b, 20, 20 -> b, 20
            alpha = torch.logsumexp(alpha.unsqueeze(2) + trans + e.unsqueeze(1), dim=1)
        log_z = torch.logsumexp(alpha + end, dim=1)         # b
        gold = em.gather(2, tags.unsqueeze(2)).squeeze(2).sum(1)                  # b
        pairs = (tags[:, :-1] * self.tags + tags[:, 1:]).flatten()                # b * 63
        gold = gold + trans.flatten().gather(0, pairs).view(b, t - 1).sum(1)      # b
        gold = gold + start.gather(0, tags[:, 0]) + end.gather(0, tags[:, -1])    # b
        return log_z - gold                                 # b


def _nll_loss(out, y):
    """The mean over the batch of the per-sample negative log-likelihoods
    that the model returns (it needs the targets, which come with its
    input); y is not used."""
    return out.mean()


def lstmcrf(batch, device):
    m, seq = BiLSTMCRF(), 64

    def make():
        tags = torch.randint(0, 20, (batch, seq), device=device)
        return (torch.randint(0, 20000, (batch, seq), device=device), tags), tags
    return m, make, _nll_loss, "sgd"


def _gather_points(pts, idx):
    """The rows of b, N, C points named by b, ... indices (a flat
    index_select over the batch's rows): b, ..., C."""
    b, n, c = pts.shape
    off = torch.arange(b, device=idx.device).view((b,) + (1,) * (idx.dim() - 1)) * n
    return pts.reshape(b * n, c).index_select(0, (idx + off).reshape(-1)).view(idx.shape + (c,))


def _farthest_points(xyz, npoint):
    """Farthest point sampling of b, N, 3 points, as PointNet++'s PyTorch
    ports write it: a Python loop of npoint steps (per step: the current
    centroid by index, squared distances to it, a running minimum, argmax),
    from a random first point.  Returns b, npoint indices."""
    b, n, _ = xyz.shape
    ar = torch.arange(b, device=xyz.device)
    far = torch.randint(0, n, (b,), device=xyz.device)      # b
    dist = xyz.new_full((b, n), 1e10)                       # b, N
    picked = []
    for _ in range(npoint):
        picked.append(far)
        c = xyz[ar, far].unsqueeze(1)                       # b, 1, 3
        dist = torch.minimum(dist, ((xyz - c) ** 2).sum(-1))   # b, N
        far = dist.argmax(-1)                               # b
    return torch.stack(picked, 1)                           # b, npoint


def _ball_query(xyz, centers, radius, k):
    """The k nearest of b, N points to each of b, S centres by cdist and
    topk; those beyond the radius replaced by the nearest (the centre
    itself), as the ball query pads its groups.  Returns b, S, k indices."""
    d = torch.cdist(centers, xyz)                           # b, S, N
    dk, idx = d.topk(k, dim=-1, largest=False)              # b, S, k each, nearest first
    return torch.where(dk > radius, idx[..., :1], idx)      # b, S, k


class SetAbstraction(nn.Module):
    """PointNet++ set abstraction (single-scale grouping): `npoint`
    centroids by farthest point sampling, `k` neighbours each by ball
    query, each group's coordinates relative to its centroid concatenated
    with the neighbours' features, a shared MLP of 1x1 Conv2d + BatchNorm2d
    + ReLU over b, C, k, npoint, and a max over the neighbours.  With
    npoint None it groups all points into one (the global abstraction)."""

    def __init__(self, npoint, radius, k, cin, mlp):
        super().__init__()
        layers, c = [], cin + 3
        for w in mlp:
            layers += [nn.Conv2d(c, w, 1), nn.BatchNorm2d(w), nn.ReLU()]
            c = w
        self.mlp = nn.Sequential(*layers)
        self.npoint, self.radius, self.k = npoint, radius, k

    def forward(self, xyz, feats):                          # b, N, 3; b, N, C (or None)
        if self.npoint is None:
            centers = None
            grouped = torch.cat([xyz, feats], -1).unsqueeze(1)   # b, 1, N, 3 + C
        else:
            with torch.no_grad():   # sampling and grouping take no gradient
                centers = _gather_points(xyz, _farthest_points(xyz, self.npoint))   # b, S, 3
                idx = _ball_query(xyz, centers, self.radius, self.k)                # b, S, k
            grouped = _gather_points(xyz, idx) - centers.unsqueeze(2)               # b, S, k, 3
            if feats is not None:
                grouped = torch.cat([grouped, _gather_points(feats, idx)], -1)   # b, S, k, 3 + C
        x = self.mlp(grouped.permute(0, 3, 2, 1))           # b, 3 + C, k, S -> b, C', k, S
        return centers, x.max(2)[0].transpose(1, 2)         # b, S, C'


class PointNet2(nn.Module):
    """PointNet++ classifier, single-scale grouping (the reference
    pointnet2_cls_ssg, xyz only) over 1,024 points: set abstractions to 512
    centroids (radius 0.2, 32 neighbours, MLP 64-64-128) and 128 centroids
    (radius 0.4, 64 neighbours, MLP 128-128-256), a global abstraction (MLP
    256-512-1024, max over all points), and a head 512-256 with
    BatchNorm1d, ReLU and dropout 0.4, to 40 classes."""

    def __init__(self, classes=40):
        super().__init__()
        self.sa1 = SetAbstraction(512, 0.2, 32, 0, [64, 64, 128])
        self.sa2 = SetAbstraction(128, 0.4, 64, 128, [128, 128, 256])
        self.sa3 = SetAbstraction(None, None, None, 256, [256, 512, 1024])
        self.head = nn.Sequential(nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.4),
                                  nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.4),
                                  nn.Linear(256, classes))

    def forward(self, x):                                   # b, 3, 1024
        xyz = x.transpose(1, 2).contiguous()                # b, 1024, 3
        xyz1, f1 = self.sa1(xyz, None)                      # b, 512, 3; b, 512, 128
        xyz2, f2 = self.sa2(xyz1, f1)                       # b, 128, 3; b, 128, 256
        _, f3 = self.sa3(xyz2, f2)                          # b, 1, 1024
        return self.head(f3.squeeze(1))                     # b, 40


def pointnet2(batch, device):
    m = PointNet2()

    def make():
        # points in the unit cube about the origin (inside the unit sphere,
        # as ModelNet's normalised shapes), so that the balls hold points
        return (torch.rand(batch, 3, 1024, device=device) - 0.5,
                torch.randint(0, 40, (batch,), device=device))
    return m, make, _cls_loss, "adamw"


class GhostBN(nn.Module):
    """Ghost batch norm as TabNet's: one BatchNorm1d applied to each
    virtual batch of 128 rows in turn (x.chunk), the results concatenated."""

    def __init__(self, c, virtual=128, momentum=0.02):
        super().__init__()
        self.bn = nn.BatchNorm1d(c, momentum=momentum)
        self.virtual = virtual

    def forward(self, x):                                   # b, c
        chunks = x.chunk(math.ceil(x.shape[0] / self.virtual), 0)
        return torch.cat([self.bn(c) for c in chunks], 0)   # b / 128 x (128, c) -> b, c


class GLULayer(nn.Module):
    """TabNet's GLU layer: a linear without bias (maybe shared) to twice
    the width, ghost batch norm, GLU."""

    def __init__(self, fc, out, virtual, momentum):
        super().__init__()
        self.fc = fc
        self.bn = GhostBN(2 * out, virtual, momentum)

    def forward(self, x):
        return F.glu(self.bn(self.fc(x)), dim=-1)           # b, 2 x 128 -> b, 128


class TabNetFeat(nn.Module):
    """TabNet's feature transformer: two GLU layers whose linears are
    shared by every step (each step with its own ghost batch norms), then
    two step-specific GLU layers; from the second layer on a residual,
    x = (x + glu(x)) * sqrt(0.5)."""

    def __init__(self, shared, out, virtual, momentum):
        super().__init__()
        self.layers = nn.ModuleList([GLULayer(fc, out, virtual, momentum) for fc in shared] +
                                    [GLULayer(nn.Linear(out, 2 * out, bias=False), out, virtual, momentum)
                                     for _ in range(2)])

    def forward(self, x):                                   # b, 54
        x = self.layers[0](x)                               # b, 128
        for layer in self.layers[1:]:
            x = (x + layer(x)) * math.sqrt(0.5)
        return x                                            # b, 128


def _sparsemax(z):
    """Sparsemax over the last dimension (Martins and Astudillo 2016) by
    sort and cumsum: the threshold tau from the support's size, then
    max(z - tau, 0).  Autograd through sort, cumsum and gather gives its
    Jacobian."""
    z = z - z.amax(-1, keepdim=True)
    zs = z.sort(-1, descending=True)[0]                     # b, F
    cs = zs.cumsum(-1) - 1                                  # b, F
    k = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)   # F
    support = (k * zs > cs).sum(-1, keepdim=True)           # b, 1 (at least 1)
    tau = cs.gather(-1, support - 1) / support.to(z.dtype)  # b, 1
    return torch.clamp(z - tau, min=0)                      # b, F


class TabNetAttention(nn.Module):
    """TabNet's attentive transformer: a linear without bias from the
    previous step's attention features to the 54 features, ghost batch
    norm, scaling by the prior, sparsemax (in fp32)."""

    def __init__(self, n_a, features, virtual, momentum):
        super().__init__()
        self.fc = nn.Linear(n_a, features, bias=False)
        self.bn = GhostBN(features, virtual, momentum)

    def forward(self, a, prior):                            # b, 64; b, 54 (fp32)
        return _sparsemax(self.bn(self.fc(a)).float() * prior)   # b, 54


class TabNet(nn.Module):
    """TabNet (Arik and Pfister) for Covertype-shaped rows: 54 numeric
    features through a BatchNorm1d; n_d = n_a = 64; an initial feature
    transformer, then 5 decision steps, each an attentive transformer
    (mask M by sparsemax of the prior-scaled attention, prior *= 1.5 - M),
    the masked features through a feature transformer (2 shared + 2
    step-specific GLU layers of 128, ghost batch norm over virtual batches
    of 128), ReLU of its first 64 outputs added to the decision output, its
    other 64 the next step's attention features; a linear to 7 classes.
    The recorder's loss sees only the output, so the masks' mean entropy
    per row (the sparsity regulariser) is appended as a last column."""

    def __init__(self, features=54, classes=7, n_d=64, n_a=64, steps=5, gamma=1.5, virtual=128, momentum=0.02):
        super().__init__()
        w = n_d + n_a
        self.bn = nn.BatchNorm1d(features, momentum=0.01)
        self.shared = nn.ModuleList([nn.Linear(features, 2 * w, bias=False), nn.Linear(w, 2 * w, bias=False)])
        self.splitter = TabNetFeat(self.shared, w, virtual, momentum)
        self.feats = nn.ModuleList(TabNetFeat(self.shared, w, virtual, momentum) for _ in range(steps))
        self.atts = nn.ModuleList(TabNetAttention(n_a, features, virtual, momentum) for _ in range(steps))
        self.head = nn.Linear(n_d, classes, bias=False)
        self.n_d, self.gamma = n_d, gamma

    def forward(self, x):                                   # b, 54
        x = self.bn(x)
        prior = torch.ones_like(x, dtype=torch.float32)     # b, 54
        att = self.splitter(x)[:, self.n_d:]                # b, 64
        out, ent = 0, 0
        for attention, feat in zip(self.atts, self.feats):
            m = attention(att, prior)                       # b, 54
            ent = ent - (m * torch.log(m + 1e-15)).sum(1)   # b
            prior = (self.gamma - m) * prior
            h = feat(m * x)                                 # b, 128
            out = out + F.relu(h[:, :self.n_d])             # b, 64
            att = h[:, self.n_d:]                           # b, 64
        ent = ent / len(self.feats)
        return torch.cat([self.head(out).float(), ent.unsqueeze(1)], 1)   # b, 7 + 1


def _tabnet_loss(out, y):
    """Cross-entropy on the 7 logits plus 1e-4 (TabNet's lambda_sparse for
    Covertype) times the masks' mean entropy, which TabNet appends as the
    last column of its output."""
    return F.cross_entropy(out[:, :-1], y) + 1e-4 * out[:, -1].mean()


def tabnet(batch, device):
    m = TabNet()

    def make():
        return (torch.randn(batch, 54, device=device),
                torch.randint(0, 7, (batch,), device=device))
    return m, make, _tabnet_loss, "adamw"


class HiFiResBlock(nn.Module):
    """HiFi-GAN's ResBlock1: for each dilation of 1, 3, 5, leaky ReLU
    (0.1), a dilated Conv1d, leaky ReLU, an undilated Conv1d, added to the
    input (channels and length kept)."""

    def __init__(self, ch, k, dilations):
        super().__init__()
        self.convs1 = nn.ModuleList(nn.Conv1d(ch, ch, k, dilation=d, padding=d * (k - 1) // 2)
                                    for d in dilations)
        self.convs2 = nn.ModuleList(nn.Conv1d(ch, ch, k, padding=(k - 1) // 2) for _ in dilations)

    def forward(self, x):
        for c1, c2 in zip(self.convs1, self.convs2):
            x = x + c2(F.leaky_relu(c1(F.leaky_relu(x, 0.1)), 0.1))
        return x


class HiFiGAN(nn.Module):
    """HiFi-GAN V1-shaped generator: 80 mel bins x 32 frames, Conv1d 7 to
    512 channels; 4 upsampling stages, each a leaky ReLU and a
    ConvTranspose1d (strides 8, 8, 2, 2, kernels 16, 16, 4, 4, channels
    halved: 256, 128, 64, 32) followed by multi-receptive-field fusion (the
    mean of 3 residual blocks of kernels 3, 7, 11, dilations 1, 3, 5); a
    leaky ReLU, Conv1d 7 to 1 channel and tanh: 32 x 256 = 8,192 samples.
    Weights initialised N(0, 0.01) as HiFi-GAN's; its weight norm is left
    out."""

    def __init__(self, mels=80, ch=512, rates=(8, 8, 2, 2), kernels=(16, 16, 4, 4),
                 res_kernels=(3, 7, 11), dilations=(1, 3, 5)):
        super().__init__()
        self.pre = nn.Conv1d(mels, ch, 7, padding=3)
        self.ups, self.mrfs = nn.ModuleList(), nn.ModuleList()
        for u, k in zip(rates, kernels):
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, k, stride=u, padding=(k - u) // 2))
            ch //= 2
            self.mrfs.append(nn.ModuleList(HiFiResBlock(ch, rk, dilations) for rk in res_kernels))
        self.post = nn.Conv1d(ch, 1, 7, padding=3)
        for mod in list(self.ups.modules()) + list(self.mrfs.modules()) + [self.post]:
            if isinstance(mod, (nn.Conv1d, nn.ConvTranspose1d)):
                nn.init.normal_(mod.weight, 0.0, 0.01)

    def forward(self, x):                                   # b, 80, 32
        x = self.pre(x)                                     # b, 512, 32
        for up, mrf in zip(self.ups, self.mrfs):
            x = up(F.leaky_relu(x, 0.1))                    # b, 256, 256 / 128, 2048 / 64, 4096 / 32, 8192
            x = sum(rb(x) for rb in mrf) / len(mrf)
        return torch.tanh(self.post(F.leaky_relu(x)))       # b, 1, 8192


def _l1_loss(out, y):
    return F.l1_loss(out, y)


def hifigan(batch, device):
    m = HiFiGAN()

    def make():
        # log-mel frames in, the waveform of their 8,192 samples out
        return (torch.randn(batch, 80, 32, device=device),
                torch.rand(batch, 1, 32 * 256, device=device) * 2 - 1)
    return m, make, _l1_loss, "adamw"


# -- fourteenth round ----------------------------------------------------------
# Models recorded after the thirteenth round: a Linear Recurrent Unit
# language model (a real, diagonal linear recurrence run in a Python loop
# over 128 steps: a multiply and an add on b x 512 per step and layer), an
# xDeepFM click-through model (26 separate embedding tables gathered one by
# one, a Compressed Interaction Network of outer products by einsum and
# 1x1 Conv1d), a PoolFormer-S12 (average pooling as the token mixer,
# GroupNorm of one group, 1x1 convolution MLPs, layer scale), a
# GPT-NeoX-shaped decoder (partial rotary embeddings by slicing and
# concatenation, attention written as matmul, masked_fill and softmax, the
# attention and the MLP in parallel on one residual) and a small
# SlowFast-shaped video CNN (two Conv3d pathways at 4 and 16 frames joined
# by time-strided lateral Conv3d and concatenation).

class LRULayer(nn.Module):
    """A Linear Recurrent Unit layer (Orvieto et al. 2023) in its real,
    diagonal form: pre-LayerNorm, an input projection B (256 -> 512 states,
    no bias) scaled per state by gamma = sqrt(1 - lambda^2), the recurrence
    h_t = lambda * h_{t-1} + gamma B u_t over the sequence in a Python loop
    (in fp32; lambda = exp(-exp(nu_log)), its magnitudes initialised in
    [0.9, 0.999] as the LRU's ring), y = C h + D u (512 -> 256), GELU, a
    GLU projection (256 -> 2 x 256), dropout and the residual."""

    def __init__(self, d=256, state=512, r_min=0.9, r_max=0.999, drop=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        u = torch.rand(state)
        nu_log = torch.log(-0.5 * torch.log(u * (r_max ** 2 - r_min ** 2) + r_min ** 2))   # 512
        self.nu_log = nn.Parameter(nu_log)
        self.gamma_log = nn.Parameter(0.5 * torch.log(1 - torch.exp(-2 * torch.exp(nu_log))))   # 512
        self.B = nn.Linear(d, state, bias=False)
        self.C = nn.Linear(state, d, bias=False)
        self.D = nn.Parameter(torch.randn(d))
        self.glu = nn.Linear(d, 2 * d)
        self.drop = nn.Dropout(drop)

    def forward(self, x):                                   # b, L, 256 (fp32 residual stream)
        u = self.norm(x)
        lam = torch.exp(-torch.exp(self.nu_log.float()))   # 512, in (0, 1)
        bu = self.B(u).float() * torch.exp(self.gamma_log.float())   # b, L, 512
        h = bu.new_zeros(bu.shape[0], bu.shape[2])          # b, 512
        hs = []
        # unbind: one backward node for all the steps (see MambaBlock)
        for bt in bu.unbind(1):                             # L x (b, 512)
            h = lam * h + bt
            hs.append(h)
        y = self.C(torch.stack(hs, dim=1)) + u * self.D     # b, L, 256
        return x + self.drop(F.glu(self.glu(F.gelu(y)), dim=-1))   # b, L, 512 -> b, L, 256


class LRULM(nn.Module):
    """A small LRU language model over 128 tokens: token embedding (8,192 x
    256), 4 LRU layers of 512 states, a final LayerNorm and an untied
    vocabulary head."""

    def __init__(self, vocab=8192, d=256, layers=4, state=512):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LRULayer(d, state) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):                                 # b, 128
        x = self.emb(idx)                                   # b, 128, 256
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x))                        # b, 128, 8192


def lru(batch, device):
    return LRULM(), _tokens(batch, 128, 8192, device), _lm_loss, "adamw"


class CIN(nn.Module):
    """xDeepFM's Compressed Interaction Network: per layer the outer
    product along the fields of the previous layer's maps and the field
    embeddings (einsum, b x H x 26 x 16), compressed to 128 maps by a 1x1
    Conv1d over the H x 26 pairs, ReLU; split_half as the reference: half
    of each layer's maps feed the next layer, half go to the output (all of
    the last layer's); the output maps summed over the 16 dims."""

    def __init__(self, fields, sizes):
        super().__init__()
        self.convs = nn.ModuleList()
        h = fields
        for i, n in enumerate(sizes):
            self.convs.append(nn.Conv1d(h * fields, n, 1))
            h = n // 2
        self.out_dim = sum(n // 2 for n in sizes[:-1]) + sizes[-1]

    def forward(self, x0):                                  # b, 26, 16
        b, m, d = x0.shape
        xk, outs = x0, []
        for i, conv in enumerate(self.convs):
            z = torch.einsum("bhd,bmd->bhmd", xk, x0).reshape(b, -1, d)   # b, H x 26, 16
            z = F.relu(conv(z))                             # b, 128, 16
            if i < len(self.convs) - 1:
                xk, z = z.split(z.shape[1] // 2, dim=1)     # b, 64, 16 each
            outs.append(z)
        return torch.cat(outs, dim=1).sum(-1)               # b, 64 + 64 + 128 = 256


class XDeepFM(nn.Module):
    """xDeepFM on Criteo-shaped inputs, laid out as DeepCTR's: 26
    categorical fields, each its own table of 100,000 x 16 (26 separate
    gathers, unlike DeepFM's one table with offsets) and of 100,000 x 1 for
    the linear part, 13 dense features; logit = linear (the first-order
    weights summed, plus a linear of the dense features) + CIN (3 layers of
    128 maps) through a linear + a DNN 400-400 (ReLU, dropout) on the
    flattened embeddings and the dense features."""

    def __init__(self, fields=26, vocab=100000, d=16, dense=13, cin=(128, 128, 128), hidden=(400, 400), drop=0.2):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(vocab, d) for _ in range(fields))      # 26 x (100k, 16)
        self.w1 = nn.ModuleList(nn.Embedding(vocab, 1) for _ in range(fields))        # 26 x (100k, 1)
        for e in list(self.embs) + list(self.w1):
            nn.init.normal_(e.weight, std=1e-4)     # as DeepCTR: N(0, 1) rows summed over 26 fields swamp the logit
        self.dense1 = nn.Linear(dense, 1)
        self.cin = CIN(fields, list(cin))
        self.cin_out = nn.Linear(self.cin.out_dim, 1)
        layers, c = [], fields * d + dense
        for h in hidden:
            layers += [nn.Linear(c, h), nn.ReLU(), nn.Dropout(drop)]
            c = h
        self.deep = nn.Sequential(*layers, nn.Linear(c, 1))

    def forward(self, inp):
        dense, cat = inp                                    # b, 13; b, 26
        ids = cat.unbind(1)                                 # 26 x (b)
        e = torch.stack([emb(i) for emb, i in zip(self.embs, ids)], dim=1)          # b, 26, 16
        first = torch.cat([w(i) for w, i in zip(self.w1, ids)], dim=1).sum(1)       # b
        first = first + self.dense1(dense).squeeze(1)
        cin = self.cin_out(self.cin(e)).squeeze(1)          # b
        deep = self.deep(torch.cat([e.flatten(1), dense.to(e.dtype)], dim=1)).squeeze(1)   # b, 429 -> b
        return first + cin + deep                           # b


def xdeepfm(batch, device):
    return XDeepFM(), _tabular(batch, 13, 26, 100000, device), _bce_loss, "adamw"


class PoolFormerBlock(nn.Module):
    """PoolFormer's block: GroupNorm of one group, the token mixer
    avgpool3x3(x) - x (stride 1, padding not counted), a 1x1 Conv2d MLP of
    ratio 4 with GELU after a second GroupNorm; each branch scaled per
    channel by a layer scale initialised to 1e-5."""

    def __init__(self, c, ratio=4, scale=1e-5):
        super().__init__()
        self.norm1, self.norm2 = nn.GroupNorm(1, c), nn.GroupNorm(1, c)
        self.pool = nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.fc1, self.fc2 = nn.Conv2d(c, ratio * c, 1), nn.Conv2d(ratio * c, c, 1)
        self.scale1 = nn.Parameter(scale * torch.ones(c, 1, 1))
        self.scale2 = nn.Parameter(scale * torch.ones(c, 1, 1))

    def forward(self, x):                                   # b, c, h, w
        y = self.norm1(x)
        x = x + self.scale1 * (self.pool(y) - y)
        return x + self.scale2 * self.fc2(F.gelu(self.fc1(self.norm2(x))))


class PoolFormer(nn.Module):
    """PoolFormer-S12 at 224x224: a 7x7 stride-4 patch embedding to 64
    channels (56x56), stages of 2, 2, 6 and 2 blocks at 64, 128, 320 and
    512 channels, 3x3 stride-2 convolutions between them (28, 14, 7), a
    final GroupNorm, the mean over positions and a linear to 100 classes.
    Stochastic depth is left out."""

    def __init__(self, depths=(2, 2, 6, 2), dims=(64, 128, 320, 512), classes=100):
        super().__init__()
        layers, c = [nn.Conv2d(3, dims[0], 7, stride=4, padding=2)], dims[0]
        for i, (n, w) in enumerate(zip(depths, dims)):
            if i:
                layers.append(nn.Conv2d(c, w, 3, stride=2, padding=1))
            layers += [PoolFormerBlock(w) for _ in range(n)]
            c = w
        self.body = nn.Sequential(*layers)
        self.norm = nn.GroupNorm(1, c)
        self.head = nn.Linear(c, classes)

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.norm(self.body(x))                         # b, 512, 7, 7
        return self.head(x.mean((2, 3)))                    # b, 100


def poolformer(batch, device):
    m = PoolFormer()

    def make():
        return (torch.randn(batch, 3, 224, 224, device=device),
                torch.randint(0, 100, (batch,), device=device))
    return m, make, _cls_loss, "adamw"


class NeoXBlock(nn.Module):
    """A GPT-NeoX layer: one fused qkv linear laid out per head (each
    head's q, k and v side by side), rotary embeddings on the first 16 of
    each head's 64 dims only (rotary_pct 0.25: slice, rotate, concatenate),
    causal attention written out (matmul, scale, masked_fill, softmax in
    fp32, matmul), and the parallel residual of NeoX: x + attn(ln1(x)) +
    mlp(ln2(x)), the MLP 768 -> 3072 -> 768 with GELU."""

    def __init__(self, d, heads, rot):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.dense = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads, self.rot = heads, rot

    def forward(self, x, cos, sin, mask):                   # b, t, 768
        b, t, d = x.shape
        hd = d // self.heads
        qkv = self.qkv(self.ln1(x)).view(b, t, self.heads, 3 * hd).transpose(1, 2)   # b, 12, t, 192
        q, k, v = qkv.split(hd, dim=-1)                     # b, 12, t, 64 each
        q = torch.cat([_rope(q[..., :self.rot], cos, sin), q[..., self.rot:]], dim=-1)
        k = torch.cat([_rope(k[..., :self.rot], cos, sin), k[..., self.rot:]], dim=-1)
        s = (q @ k.transpose(2, 3)).float() * hd ** -0.5    # b, 12, t, t
        w = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
        a = (w.to(v.dtype) @ v).transpose(1, 2).reshape(b, t, d)   # b, t, 768
        return x + self.dense(a) + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class NeoX(nn.Module):
    """A GPT-NeoX-shaped decoder (Pythia-160M's width, 8 layers): token
    embedding (32,000 x 768), 8 NeoX layers of 12 heads, a final LayerNorm
    and an untied output embedding; rotary angles and the causal mask are
    buffers."""

    def __init__(self, vocab=32000, d=768, layers=8, heads=12, seq=256, rot_pct=0.25):
        super().__init__()
        rot = int(d // heads * rot_pct)                     # 16
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(NeoXBlock(d, heads, rot) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, rot, 2).float() / rot))
        ang = torch.outer(torch.arange(seq).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)                 # seq, 16
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, idx):                                 # b, 256
        t = idx.shape[1]
        x = self.emb(idx)                                   # b, 256, 768
        for blk in self.blocks:
            x = blk(x, self.cos[:t], self.sin[:t], self.mask[:t, :t])
        return self.head(self.ln(x))                        # b, 256, 32000


def neox(batch, device):
    return NeoX(), _tokens(batch, 256, 32000, device), _lm_loss, "adamw"


class Bottleneck3d(nn.Module):
    """A SlowFast bottleneck: a Conv3d of temporal kernel kt (1x1 spatial),
    a 1x3x3 Conv3d (spatial stride), a 1x1x1 Conv3d to the output width,
    BatchNorm3d after each, ReLU, a projected shortcut where the shape
    changes."""

    def __init__(self, cin, inner, cout, kt, stride):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv3d(cin, inner, (kt, 1, 1), padding=(kt // 2, 0, 0), bias=False),
            nn.BatchNorm3d(inner), nn.ReLU(inplace=True),
            nn.Conv3d(inner, inner, (1, 3, 3), stride=(1, stride, stride), padding=(0, 1, 1), bias=False),
            nn.BatchNorm3d(inner), nn.ReLU(inplace=True),
            nn.Conv3d(inner, cout, 1, bias=False), nn.BatchNorm3d(cout))
        self.short = None
        if cin != cout or stride != 1:
            self.short = nn.Sequential(nn.Conv3d(cin, cout, 1, stride=(1, stride, stride), bias=False),
                                       nn.BatchNorm3d(cout))

    def forward(self, x):
        s = x if self.short is None else self.short(x)
        return F.relu(self.body(x) + s)


def _slowfast_stage(cin, inner, cout, kt, stride, blocks):
    return nn.Sequential(*[Bottleneck3d(cin if i == 0 else cout, inner, cout, kt, stride if i == 0 else 1)
                           for i in range(blocks)])


class Lateral(nn.Module):
    """SlowFast's fast-to-slow fusion: a 5x1x1 Conv3d of temporal stride
    4 (16 frames to 4) doubling the fast channels, BatchNorm3d, ReLU, the
    result concatenated to the slow pathway's channels."""

    def __init__(self, c, alpha):
        super().__init__()
        self.conv = nn.Conv3d(c, 2 * c, (5, 1, 1), stride=(alpha, 1, 1), padding=(2, 0, 0), bias=False)
        self.bn = nn.BatchNorm3d(2 * c)

    def forward(self, slow, fast):
        return torch.cat([slow, F.relu(self.bn(self.conv(fast)))], dim=1)


class SlowFast(nn.Module):
    """A small SlowFast-shaped video classifier (ResNet-50 bottlenecks at
    half width, 1, 2, 2, 1 blocks per stage) on 16 x 112x112 clips: the
    slow pathway sees every 4th frame (4 frames, stem 1x7x7 to 32
    channels, stages of 128, 256, 512 and 1,024, temporal kernels 1 in the
    first two stages and 3 after, as SlowFast's), the fast pathway all 16
    (1/8 the channels: stem 5x7x7 to 4, stages of 16, 32, 64 and 128,
    temporal kernel 3 throughout); stems stride 2 and a 1x3x3 max pool
    (28x28), stages at spatial strides 1, 2, 2, 2 (down to 4x4); lateral
    connections after the stem and the first three stages; global average
    pools of both, concatenated, dropout 0.5, a linear to 50 classes."""

    def __init__(self, classes=50, alpha=4, width=32, blocks=(1, 2, 2, 1)):
        super().__init__()
        sw, fw = width, width // 8                          # 32, 4
        self.alpha = alpha
        self.slow_stem = nn.Sequential(nn.Conv3d(3, sw, (1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3), bias=False),
                                       nn.BatchNorm3d(sw), nn.ReLU(inplace=True))
        self.fast_stem = nn.Sequential(nn.Conv3d(3, fw, (5, 7, 7), stride=(1, 2, 2), padding=(2, 3, 3), bias=False),
                                       nn.BatchNorm3d(fw), nn.ReLU(inplace=True))
        self.pool = nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
        self.laterals = nn.ModuleList([Lateral(fw, alpha)])
        self.slow, self.fast = nn.ModuleList(), nn.ModuleList()
        s_in, f_in = sw + 2 * fw, fw
        for i, n in enumerate(blocks):
            mult = 2 ** i
            s_out, f_out = 4 * sw * mult, 4 * fw * mult
            self.slow.append(_slowfast_stage(s_in, sw * mult, s_out, 1 if i < 2 else 3, 1 if i == 0 else 2, n))
            self.fast.append(_slowfast_stage(f_in, fw * mult, f_out, 3, 1 if i == 0 else 2, n))
            if i < len(blocks) - 1:
                self.laterals.append(Lateral(f_out, alpha))
                s_out += 2 * f_out
            s_in, f_in = s_out, f_out
        self.drop = nn.Dropout(0.5)
        self.head = nn.Linear(s_in + f_in, classes)

    def forward(self, x):                                   # b, 3, 16, 112, 112
        slow = self.pool(self.slow_stem(x[:, :, ::self.alpha]))   # b, 32, 4, 28, 28
        fast = self.pool(self.fast_stem(x))                 # b, 4, 16, 28, 28
        slow = self.laterals[0](slow, fast)                 # b, 40, 4, 28, 28
        for i, (s, f) in enumerate(zip(self.slow, self.fast)):
            slow, fast = s(slow), f(fast)                   # 128 .. 1024 x 4 x 28^2 .. 4^2; 16 .. 128 x 16 x ..
            if i + 1 < len(self.laterals):
                slow = self.laterals[i + 1](slow, fast)
        h = torch.cat([slow.mean((2, 3, 4)), fast.mean((2, 3, 4))], dim=1)   # b, 1024 + 128
        return self.head(self.drop(h))                      # b, 50


def slowfast(batch, device):
    m = SlowFast()

    def make():
        return (torch.randn(batch, 3, 16, 112, 112, device=device),
                torch.randint(0, 50, (batch,), device=device))
    return m, make, _cls_loss, "sgd_momentum"


# -- fifteenth round -----------------------------------------------------------
# Models recorded after the fourteenth round: a GPT-2-shaped decoder whose
# MLPs are top-2 mixtures of 8 experts (the token-expert pairs sorted by
# expert with argsort, split by counts read back once per layer, gathered
# by index_select and combined by index_add_; attention written as matmul,
# masked_fill and softmax), an EfficientDet-shaped detector (an
# EfficientNet-B0 backbone of depthwise convolutions and squeeze-excitation,
# 3 BiFPN layers of weighted fusions, nearest upsampling and max-pool
# downsampling over five levels, depthwise-separable heads shared across the
# levels, a focal loss), a Transformer-XL-shaped LM (two segments per step,
# each attending to the detached hidden states of the segment before it,
# sinusoidal relative positions through the pad-and-view rel-shift), a
# GraphSAGE trained on sampled 2-hop neighbourhoods (the sampling in the
# step: randint, remainder and index_select over a CSR graph; mean
# aggregation by index_add_) and a UNETR-shaped 3-D segmenter (a ViT over
# the 216 patches of a 96^3 volume, its hidden states at four depths
# reshaped to 6^3 grids and brought up to 96^3 by ConvTranspose3d and 3x3x3
# Conv3d residual blocks with InstanceNorm3d).

class SortedMoE(nn.Module):
    """A top-2 mixture of GELU expert MLPs with a softmax router, dispatched
    as sort-based MoE code does without fused kernels: the token-expert
    pairs sorted by expert (argsort), the counts per expert read back to
    the host (one sync per layer, where MoEFFN syncs once per expert), the
    tokens gathered in expert order by one index_select, each expert run on
    its contiguous slice, the rows scaled by their renormalised gates and
    added back by index_add_.  No capacity limit and no load-balancing loss
    (the loss sees only the logits)."""

    def __init__(self, d, ff, experts, top):
        super().__init__()
        self.router = nn.Linear(d, experts, bias=False)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))
                                     for _ in range(experts))
        self.top = top

    def forward(self, x):                                   # n, 512 (n = b x 256 tokens)
        probs = torch.softmax(self.router(x).float(), dim=-1)   # n, 8
        w, idx = probs.topk(self.top, dim=-1)               # n, 2
        w = w / w.sum(dim=-1, keepdim=True)
        order = idx.flatten().argsort()                     # 2n pairs grouped by expert
        tok = torch.div(order, self.top, rounding_mode="floor")   # the token of each pair
        counts = torch.bincount(idx.flatten(), minlength=len(self.experts)).tolist()   # host sync
        xs = x.index_select(0, tok).split(counts)           # 8 x (rows routed to the expert, 512)
        y = torch.cat([expert(xe) for expert, xe in zip(self.experts, xs)])   # 2n, 512
        y = y * w.flatten().index_select(0, order).unsqueeze(1)
        # under autocast the experts' output is bf16 and the gates fp32
        return torch.zeros_like(x).index_add_(0, tok, y.to(x.dtype))


class GPT2MoEBlock(nn.Module):
    """GPT-2's pre-LN block with a SortedMoE for the MLP: one qkv linear,
    causal attention written out (matmul, scale, masked_fill, softmax in
    fp32, dropout, matmul), the output projection, dropout 0.1 on both
    residual branches."""

    def __init__(self, d, heads, experts, top, drop=0.1):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.moe = SortedMoE(d, 4 * d, experts, top)
        self.drop = nn.Dropout(drop)
        self.heads = heads

    def forward(self, x, mask):                             # b, t, 512
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)   # b, 8, t, 64
        s = (q @ k.transpose(2, 3)).float() * hd ** -0.5    # b, 8, t, t
        w = self.drop(torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1))
        x = x + self.drop(self.proj((w.to(v.dtype) @ v).transpose(1, 2).reshape(b, t, d)))
        return x + self.drop(self.moe(self.ln2(x).reshape(b * t, d)).view(b, t, d))


class GPT2MoE(nn.Module):
    """A small GPT-2-shaped mixture-of-experts decoder: token (16,000 x
    512) and learned position embeddings, embedding dropout, 6 blocks of 8
    heads whose MLPs are 8 experts of 512 -> 2048 -> 512 (top 2), a final
    LayerNorm and the LM head tied to the token embedding as GPT-2's."""

    def __init__(self, vocab=16000, d=512, layers=6, heads=8, seq=256, experts=8, top=2):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        # GPT-2's initialisation: N(0, 1) rows through the tied head give logits of std sqrt(512)
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.01)
        self.drop = nn.Dropout(0.1)
        self.blocks = nn.ModuleList(GPT2MoEBlock(d, heads, experts, top) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, idx):                                 # b, 256
        t = idx.shape[1]
        x = self.drop(self.tok(idx) + self.pos(torch.arange(t, device=idx.device)))   # b, 256, 512
        for blk in self.blocks:
            x = blk(x, self.mask[:t, :t])
        return F.linear(self.ln(x), self.tok.weight)        # b, 256, 16000


def gpt2moe(batch, device):
    return GPT2MoE(), _tokens(batch, 256, 16000, device), _lm_loss, "adamw"


class MBConv(nn.Module):
    """EfficientNet's MBConv: a 1x1 expansion (unless the ratio is 1), a
    k x k depthwise convolution (stride s), squeeze-excitation (global
    mean, 1x1 to a quarter of the block's input channels, SiLU, 1x1,
    sigmoid gate), a 1x1 projection without activation; BatchNorm after
    each convolution, SiLU, the residual where the shape is kept.
    Stochastic depth is left out."""

    def __init__(self, cin, cout, expand, k, stride):
        super().__init__()
        c = cin * expand
        layers = [] if expand == 1 else [nn.Conv2d(cin, c, 1, bias=False), nn.BatchNorm2d(c), nn.SiLU()]
        layers += [nn.Conv2d(c, c, k, stride, k // 2, groups=c, bias=False), nn.BatchNorm2d(c), nn.SiLU()]
        self.body = nn.Sequential(*layers)
        self.se1, self.se2 = nn.Conv2d(c, max(1, cin // 4), 1), nn.Conv2d(max(1, cin // 4), c, 1)
        self.proj = nn.Sequential(nn.Conv2d(c, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.res = stride == 1 and cin == cout

    def forward(self, x):
        h = self.body(x)
        h = self.proj(h * torch.sigmoid(self.se2(F.silu(self.se1(h.mean((2, 3), keepdim=True))))))
        return x + h if self.res else h


class EffNetB0Features(nn.Module):
    """EfficientNet-B0's stem (3x3 stride 2 to 32) and seven MBConv stages
    (expansion, width, repeats, stride, kernel as the paper's table),
    returning the stride-8, -16 and -32 maps (40, 112 and 320 channels)
    that feed the BiFPN; the 1x1 head to 1,280 channels is not built."""

    CFG = ((1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 40, 2, 2, 5), (6, 80, 3, 2, 3),
           (6, 112, 3, 1, 5), (6, 192, 4, 2, 5), (6, 320, 1, 1, 3))

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.SiLU())
        self.stages, c = nn.ModuleList(), 32
        for e, w, n, s, k in self.CFG:
            self.stages.append(nn.Sequential(*[MBConv(c if i == 0 else w, w, e, k, s if i == 0 else 1)
                                               for i in range(n)]))
            c = w

    def forward(self, x):                                   # b, 3, 384, 384
        x, feats = self.stem(x), []
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if i in (2, 4, 6):
                feats.append(x)
        return feats                                        # 40 x 48^2, 112 x 24^2, 320 x 12^2


class SepConv(nn.Module):
    """A depthwise-separable 3x3 convolution: depthwise 3x3 without bias,
    pointwise 1x1 with bias, BatchNorm unless norm is False."""

    def __init__(self, cin, cout, norm=True):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, padding=1, groups=cin, bias=False)
        self.pw = nn.Conv2d(cin, cout, 1)
        self.bn = nn.BatchNorm2d(cout, momentum=0.01, eps=1e-3) if norm else nn.Identity()

    def forward(self, x):
        return self.bn(self.pw(self.dw(x)))


class BiFPNLayer(nn.Module):
    """One BiFPN layer over five levels (P3 .. P7, 64 channels): a top-down
    path (P6 .. P3, each node the fast normalised fusion, ReLU weights over
    their sum, of its level's input and the nearest-upsampled node above)
    then a bottom-up path (P4 .. P7, fusing the level's input, its
    top-down node and the max-pooled (3x3 stride 2) output below; P7 has
    no top-down node); each fused map through SiLU and a SepConv."""

    def __init__(self, c, levels=5):
        super().__init__()
        self.td = nn.ModuleList(SepConv(c, c) for _ in range(levels - 1))
        self.bu = nn.ModuleList(SepConv(c, c) for _ in range(levels - 1))
        self.w_td = nn.Parameter(torch.ones(levels - 1, 2))
        self.w_bu = nn.Parameter(torch.ones(levels - 1, 3))

    @staticmethod
    def _fuse(w, xs):
        w = F.relu(w)
        w = w / (w.sum() + 1e-4)
        return F.silu(sum(wi * x for wi, x in zip(w, xs)))

    def forward(self, ps):                                  # 5 x (b, 64, 48^2 .. 3^2)
        n = len(ps)
        td = list(ps)
        for i in range(n - 2, -1, -1):
            up = F.interpolate(td[i + 1], size=ps[i].shape[-2:], mode="nearest")
            td[i] = self.td[i](self._fuse(self.w_td[i], (ps[i], up)))
        out = [td[0]]
        for i in range(1, n):
            down = F.max_pool2d(out[-1], 3, 2, 1)
            xs = (ps[i], td[i], down) if i < n - 1 else (ps[i], down)
            out.append(self.bu[i - 1](self._fuse(self.w_bu[i - 1, :len(xs)], xs)))
        return out


class EffDetHead(nn.Module):
    """EfficientDet's class or box net: 3 SepConvs of 64 shared across the
    five levels, each with its own BatchNorm per level, SiLU, then a SepConv
    (no norm) to 9 anchors x outs, flattened per level and concatenated."""

    def __init__(self, c, outs, anchors=9, repeats=3, levels=5, prior=None):
        super().__init__()
        self.convs = nn.ModuleList(SepConv(c, c, norm=False) for _ in range(repeats))
        self.norms = nn.ModuleList(nn.ModuleList(nn.BatchNorm2d(c, momentum=0.01, eps=1e-3)
                                                 for _ in range(repeats)) for _ in range(levels))
        self.pred = SepConv(c, anchors * outs, norm=False)
        if prior is not None:                               # the focal loss's prior on the class logits
            nn.init.constant_(self.pred.pw.bias, -math.log((1 - prior) / prior))
        self.outs = outs

    def forward(self, ps):
        res = []
        for p, norms in zip(ps, self.norms):
            for conv, bn in zip(self.convs, norms):
                p = F.silu(bn(conv(p)))
            y = self.pred(p)                                # b, 9 x outs, h, w
            res.append(y.permute(0, 2, 3, 1).reshape(y.shape[0], -1, self.outs))
        return torch.cat(res, dim=1)                        # b, 9 x 3,069 = 27,621, outs


class EfficientDet(nn.Module):
    """An EfficientDet-D0-shaped detector at 384x384: EffNetB0Features, its
    three maps projected to 64 channels (1x1 Conv2d, BatchNorm), P6 and P7
    by a 1x1 projection and max pools of the stride-32 map (6^2, 3^2), 3
    BiFPN layers, a class net (80 classes) and a box net (4 offsets) on
    every level; returns b x 27,621 anchors x (4 + 80)."""

    def __init__(self, classes=80, c=64, layers=3):
        super().__init__()
        self.backbone = EffNetB0Features()
        self.lat = nn.ModuleList(nn.Sequential(nn.Conv2d(cin, c, 1), nn.BatchNorm2d(c, momentum=0.01, eps=1e-3))
                                 for cin in (40, 112, 320))
        self.p6 = nn.Sequential(nn.Conv2d(320, c, 1), nn.BatchNorm2d(c, momentum=0.01, eps=1e-3))
        self.bifpn = nn.Sequential(*[BiFPNLayer(c) for _ in range(layers)])
        self.box, self.cls = EffDetHead(c, 4), EffDetHead(c, classes, prior=0.01)

    def forward(self, x):                                   # b, 3, 384, 384
        c3, c4, c5 = self.backbone(x)
        p6 = F.max_pool2d(self.p6(c5), 3, 2, 1)             # b, 64, 6, 6
        ps = [lat(f) for lat, f in zip(self.lat, (c3, c4, c5))] + [p6, F.max_pool2d(p6, 3, 2, 1)]
        ps = self.bifpn(ps)                                 # 5 x (b, 64, 48^2 .. 3^2)
        return torch.cat([self.box(ps), self.cls(ps)], dim=2)   # b, 27621, 84


def _focal_loss(out, y):
    """Stands in for EfficientDet's loss, which matches anchors to boxes by
    IoU: the sigmoid focal loss (alpha 0.25, gamma 2) of the class
    channels against random sparse one-hot targets, summed over every
    anchor and divided by the number of positive anchors, plus 50 times
    the Huber loss (delta 0.1) of the 4 box channels at the positive
    anchors.  The heads and their gradients keep their shapes; the
    matching is left out."""
    logits, t = out[..., 4:], y[..., 4:]
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, t, reduction="none")
    pt = p * t + (1 - p) * (1 - t)
    focal = (0.25 * t + 0.75 * (1 - t)) * (1 - pt) ** 2 * ce
    pos = t.amax(dim=-1)                                    # b, anchors: 1 where positive
    npos = pos.sum().clamp(min=1)
    box = F.huber_loss(out[..., :4], y[..., :4], reduction="none", delta=0.1).sum(-1) * pos
    return focal.sum() / npos + 50 * box.sum() / (4 * npos)


def efficientdet(batch, device):
    m = EfficientDet()
    n = 9 * (48 ** 2 + 24 ** 2 + 12 ** 2 + 6 ** 2 + 3 ** 2)   # 27,621 anchors

    def make():
        pos = (torch.rand(batch, n, 1, device=device) < 0.01).float()   # about 1% positive anchors
        cls = F.one_hot(torch.randint(0, 80, (batch, n), device=device), 80).float() * pos
        return (torch.randn(batch, 3, 384, 384, device=device),
                torch.cat([0.1 * torch.randn(batch, n, 4, device=device), cls], dim=2))   # b, 27621, 84
    return m, make, _focal_loss, "adamw"


def _rel_shift(x):
    """Transformer-XL's relative shift of b, heads, q, k scores against the
    distances k-1 .. 0: a zero column padded on the left and a view that
    skews the rows, so that entry (i, j) holds the score of distance
    i + k - q - j (the wrapped entries above it are masked)."""
    b, h, q, k = x.shape
    x = F.pad(x, (1, 0)).view(b, h, k + 1, q)               # b, h, k + 1, q
    return x[:, :, 1:].view(b, h, q, k)


class TXLLayer(nn.Module):
    """A Transformer-XL layer (post-LN as the reference): queries from the
    segment, keys and values from the memory and the segment concatenated
    (one qkv linear over both, as the reference), the score the content
    term (q + u) k plus the position term (q + v) W_r R rel-shifted, u and
    v shared by the layers; masked so that a token sees the memory and
    the segment up to itself, softmax in fp32, attention dropout; then the
    ReLU feed-forward 512 -> 2048 -> 512, dropout 0.1 on each branch."""

    def __init__(self, d, heads, ff, drop):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.r = nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.drop = nn.Dropout(drop)
        self.heads = heads

    def forward(self, x, mem, pos, u, v, mask):             # b, 128, 512; b, 128, 512; 256, 512
        b, q, d = x.shape
        hd = d // self.heads
        k = mem.shape[1] + q
        h = self.qkv(torch.cat([mem, x], dim=1)).view(b, k, 3, self.heads, hd)
        wq = h[:, -q:, 0].transpose(1, 2)                   # b, 8, 128, 64
        wk, wv = h[:, :, 1].transpose(1, 2), h[:, :, 2].transpose(1, 2)   # b, 8, 256, 64
        rk = self.r(pos).view(k, self.heads, hd).permute(1, 2, 0)   # 8, 64, 256
        ac = (wq + u.unsqueeze(1)) @ wk.transpose(2, 3)     # b, 8, 128, 256: content
        bd = _rel_shift((wq + v.unsqueeze(1)) @ rk)         # b, 8, 128, 256: position
        s = (ac + bd).float() * hd ** -0.5
        w = self.drop(torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1))
        a = (w.to(wv.dtype) @ wv).transpose(1, 2).reshape(b, q, d)
        x = self.ln1(x + self.drop(self.o(a)))
        return self.ln2(x + self.drop(self.fc2(self.drop(F.relu(self.fc1(x))))))


class TransformerXL(nn.Module):
    """A Transformer-XL-shaped LM (the enwik8 base model's widths, 512 with
    8 heads and 2,048 inner, at 6 layers; a plain 16,000-token embedding
    scaled by sqrt(d) and an untied softmax in place of the adaptive
    ones): each step's 256 tokens
    are two segments of 128, the first attending to the memory kept from
    the previous step's last segment, the second to the first's; the
    memory is each layer's input, detached (zeros before the first step).
    The sinusoids of distances 255 .. 0 and the mask are buffers."""

    def __init__(self, vocab=16000, d=512, layers=6, heads=8, ff=2048, seg=128, drop=0.1):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(TXLLayer(d, heads, ff, drop) for _ in range(layers))
        self.u = nn.Parameter(0.02 * torch.randn(heads, d // heads))
        self.v = nn.Parameter(0.02 * torch.randn(heads, d // heads))
        self.head = nn.Linear(d, vocab)
        self.drop = nn.Dropout(drop)
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        ang = torch.outer(torch.arange(2 * seg - 1, -1, -1).float(), inv)   # 256, 256
        self.register_buffer("pos", torch.cat([ang.sin(), ang.cos()], dim=-1), persistent=False)   # 256, 512
        self.register_buffer("mask", torch.ones(seg, 2 * seg, dtype=torch.bool).triu(1 + seg), persistent=False)
        self.seg, self.scale = seg, d ** 0.5
        self.mems = None    # carried from step to step, as the reference's training loop does

    def forward(self, idx):                                 # b, 256
        b = idx.shape[0]
        if self.mems is None or self.mems[0].shape[0] != b:
            self.mems = [self.pos.new_zeros(b, self.seg, self.pos.shape[1])] * len(self.layers)
        pos, outs = self.drop(self.pos), []
        for seg in idx.split(self.seg, dim=1):              # 2 x (b, 128)
            x, hids = self.drop(self.emb(seg) * self.scale), []
            for layer, mem in zip(self.layers, self.mems):
                hids.append(x.detach())
                x = layer(x, mem, pos, self.u, self.v, self.mask)
            outs.append(self.drop(x))
            self.mems = hids
        return self.head(torch.cat(outs, dim=1))            # b, 256, 16000


def transformerxl(batch, device):
    return TransformerXL(), _tokens(batch, 256, 16000, device), _lm_loss, "adamw"


def _sample_neighbours(rowptr, deg, col, nodes, fanout):
    """fanout neighbours of each node drawn with replacement from its CSR
    row, as a GPU sampler does: random offsets (randint modulo the degree)
    added to the row's start, then index_select of the column array."""
    r = torch.randint(0, 1 << 30, (nodes.shape[0], fanout), device=nodes.device)
    r = r % deg.index_select(0, nodes).unsqueeze(1)        # n, fanout: offsets within each row
    return col.index_select(0, (rowptr.index_select(0, nodes).unsqueeze(1) + r).flatten())   # n x fanout


class SampledSAGE(nn.Module):
    """GraphSAGE (mean aggregator, as PyG's SAGEConv: a linear of the mean
    of the neighbours plus a linear of the node itself) trained on sampled
    neighbourhoods, the sampling inside the step: 20 neighbours of each
    seed, then 20 of each of those (with replacement, no de-duplication:
    b x 20 and b x 400 nodes), their features gathered by index_select.
    Layer 1 (128 -> 256) updates the seeds and the first hop from their
    sampled neighbours, layer 2 (256 -> 256) the seeds from the first hop;
    the mean by index_add_ over the sampled edges and a division by the
    fanout; ReLU and dropout 0.5 after each, then a linear to 47 classes."""

    def __init__(self, fin=128, hidden=256, classes=47, fanout=20):
        super().__init__()
        self.nbr1, self.self1 = nn.Linear(fin, hidden), nn.Linear(fin, hidden, bias=False)
        self.nbr2, self.self2 = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden, bias=False)
        self.head = nn.Linear(hidden, classes)
        self.fanout = fanout

    def forward(self, inp):
        feat, rowptr, deg, col, seeds = inp                 # 50k x 128, CSR of ~1M edges, b
        b, f = seeds.shape[0], self.fanout
        hop1 = _sample_neighbours(rowptr, deg, col, seeds, f)    # b x 20
        hop2 = _sample_neighbours(rowptr, deg, col, hop1, f)     # b x 400
        x = feat.index_select(0, torch.cat([seeds, hop1, hop2]))   # b x 421, 128
        n1 = b * (1 + f)                                    # seeds and first hop: layer 1's targets
        dst = torch.arange(n1, device=seeds.device).repeat_interleave(f)   # b x 420 sampled edges
        agg = torch.zeros_like(x[:n1]).index_add_(0, dst, x[b:]) / f
        h = F.dropout(F.relu(self.nbr1(agg) + self.self1(x[:n1])), 0.5, self.training)   # b x 21, 256
        agg = torch.zeros_like(h[:b]).index_add_(0, dst[:b * f], h[b:]) / f
        h = F.dropout(F.relu(self.nbr2(agg) + self.self2(h[:b])), 0.5, self.training)    # b, 256
        return self.head(h)                                 # b, 47


def gnnsage(batch, device):
    """batch: seed nodes of a random 50,000-node graph of 10 to 30
    neighbours per node (about 1M edges, CSR)."""
    m, nodes = SampledSAGE(), 50000

    def make():
        deg = torch.randint(10, 31, (nodes,), device=device)
        rowptr = torch.cat([deg.new_zeros(1), deg.cumsum(0)[:-1]])
        col = torch.randint(0, nodes, (int(deg.sum()),), device=device)
        seeds = torch.randperm(nodes, device=device)[:batch]
        return ((torch.randn(nodes, 128, device=device), rowptr, deg, col, seeds),
                torch.randint(0, 47, (batch,), device=device))
    return m, make, _cls_loss, "adamw"


class UNETRBlock(nn.Module):
    """MONAI's UnetResBlock as UNETR uses it: two 3x3x3 Conv3d, each with
    InstanceNorm3d (affine), LeakyReLU 0.01 after the first and after the
    sum; a 1x1x1 Conv3d and norm on the residual where the channels
    change."""

    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv3d(cin, cout, 3, padding=1, bias=False)
        self.conv2 = nn.Conv3d(cout, cout, 3, padding=1, bias=False)
        self.norm1, self.norm2 = nn.InstanceNorm3d(cout, affine=True), nn.InstanceNorm3d(cout, affine=True)
        self.short = None
        if cin != cout:
            self.short = nn.Sequential(nn.Conv3d(cin, cout, 1, bias=False), nn.InstanceNorm3d(cout, affine=True))

    def forward(self, x):
        h = self.norm2(self.conv2(F.leaky_relu(self.norm1(self.conv1(x)), 0.01)))
        return F.leaky_relu(h + (x if self.short is None else self.short(x)), 0.01)


class UNETRUp(nn.Module):
    """A decoder stage: a 2x2x2 stride-2 ConvTranspose3d, then (given a
    skip) the concatenation and a UNETRBlock; without a skip, as the
    encoder's projections of the ViT's states, `blocks` more transposed
    convolutions each followed by a UNETRBlock."""

    def __init__(self, cin, cout, skip, blocks=0):
        super().__init__()
        self.up = nn.ConvTranspose3d(cin, cout, 2, stride=2, bias=False)
        self.block = UNETRBlock(2 * cout, cout) if skip else None
        self.more = nn.Sequential(*[nn.Sequential(nn.ConvTranspose3d(cout, cout, 2, stride=2, bias=False),
                                                  UNETRBlock(cout, cout)) for _ in range(blocks)])

    def forward(self, x, skip=None):
        x = self.up(x)
        if skip is not None:
            return self.block(torch.cat([x, skip], dim=1))
        return self.more(x)


class ViTBlock(nn.Module):
    """A pre-LN ViT block, attention written out (qkv linear, matmul,
    scale, softmax in fp32, matmul, projection) as UNETR's own ViT does,
    then a GELU MLP of ratio 4; no dropout, as UNETR's default."""

    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x):                                   # b, 216, 384
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)   # b, 6, 216, 64
        w = torch.softmax((q @ k.transpose(2, 3)).float() * hd ** -0.5, dim=-1)   # b, 6, 216, 216
        x = x + self.proj((w.to(v.dtype) @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class UNETR(nn.Module):
    """A UNETR-shaped segmenter on 1 x 96^3 volumes (MONAI's layout, feature
    size 16, a ViT of 8 layers of 384 in place of 12 of 768): 16^3 patches
    by a strided Conv3d (216 tokens) plus learned positions, pre-LN blocks
    of 6 heads with attention written out (matmul, softmax, matmul) and a
    GELU MLP of 1,536; the states after layers 2, 4 and 6 and the final
    normed state reshaped to 384 x 6^3 grids; the encoder's skips at 96^3
    (a UNETRBlock on the volume), 48^3, 24^3 and 12^3 (transposed
    convolutions from the grids), the decoder back up from the last grid
    by UNETRUp stages of 128, 64, 32 and 16 and a 1x1x1 Conv3d to 4
    classes per voxel."""

    def __init__(self, d=384, layers=8, heads=6, patch=16, size=96, f=16, classes=4):
        super().__init__()
        self.grid = size // patch                           # 6
        self.embed = nn.Conv3d(1, d, patch, stride=patch)
        self.pos = nn.Parameter(0.02 * torch.randn(1, self.grid ** 3, d))
        self.blocks = nn.ModuleList(ViTBlock(d, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.enc1 = UNETRBlock(1, f)
        self.enc2 = UNETRUp(d, 2 * f, False, 2)             # 6 -> 48
        self.enc3 = UNETRUp(d, 4 * f, False, 1)             # 6 -> 24
        self.enc4 = UNETRUp(d, 8 * f, False, 0)             # 6 -> 12
        self.dec5 = UNETRUp(d, 8 * f, True)                 # 6 -> 12
        self.dec4 = UNETRUp(8 * f, 4 * f, True)             # 12 -> 24
        self.dec3 = UNETRUp(4 * f, 2 * f, True)             # 24 -> 48
        self.dec2 = UNETRUp(2 * f, f, True)                 # 48 -> 96
        self.out = nn.Conv3d(f, classes, 1)

    def _grid(self, x):                                     # b, 216, 384 -> b, 384, 6, 6, 6
        g = self.grid
        return x.transpose(1, 2).reshape(x.shape[0], -1, g, g, g)

    def forward(self, vol):                                 # b, 1, 96, 96, 96
        x = self.embed(vol).flatten(2).transpose(1, 2) + self.pos   # b, 216, 384
        states = []
        for blk in self.blocks:
            x = blk(x)
            states.append(x)
        e2 = self.enc2(self._grid(states[1]))               # b, 32, 48^3
        e3 = self.enc3(self._grid(states[3]))               # b, 64, 24^3
        e4 = self.enc4(self._grid(states[5]))               # b, 128, 12^3
        h = self.dec5(self._grid(self.norm(x)), e4)         # b, 128, 12^3
        h = self.dec3(self.dec4(h, e3), e2)                 # b, 32, 48^3
        return self.out(self.dec2(h, self.enc1(vol)))       # b, 4, 96^3


def unetr(batch, device):
    m = UNETR()

    def make():
        return (torch.randn(batch, 1, 96, 96, 96, device=device),
                torch.randint(0, 4, (batch, 96, 96, 96), device=device))
    return m, make, _cls_loss, "adamw"


# -- sixteenth round -----------------------------------------------------------
# Models recorded after the fifteenth round: a CANDLE Uno-shaped
# drug-response regressor (three wide MLP towers of 1,000 over 942, 3,820
# and 2,048 features, concatenated, five residual dense layers; large GEMMs
# at a batch of thousands), a Deep Interest Network (gathers from a
# 1,000,000 x 64 dense embedding table whose whole gradient Adam steps,
# a local activation unit MLP over 50 behaviours with Dice, that is a
# BatchNorm1d and a sigmoid, a padding mask and bmm pooling), a Quasi-RNN
# language model (causal Conv1d gates, then the fo-pooling recurrence in a
# Python loop over 128 steps: a multiply and an add on b x 512 per step
# and layer), a 3-D residual U-Net on 128^3 volumes (3x3x3 Conv3d,
# GroupNorm, strided Conv3d down, trilinear interpolation up, soft Dice
# plus cross-entropy) and an Inception-v3 at 299x299 (the factorised 1x7,
# 7x1, 1x3 and 3x1 convolutions, branches concatenated, an auxiliary head,
# label smoothing).

class UnoTower(nn.Module):
    """A dense stack as Uno's feature and top models build it: per layer a
    Linear, ReLU and dropout, the layer's input added back where the widths
    match (Uno's `residual`: every layer but a first that changes width)."""

    def __init__(self, cin, widths, drop):
        super().__init__()
        self.layers = nn.ModuleList()
        for w in widths:
            self.layers.append(nn.Linear(cin, w))
            cin = w
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        for lin in self.layers:
            h = self.drop(F.relu(lin(x)))
            x = h + x if h.shape == x.shape else h
        return x


class Uno(nn.Module):
    """A CANDLE Uno-shaped drug-response regressor (its default model,
    one drug): towers of 3 x 1,000 over the cell line's 942 gene
    expressions, the drug's 3,820 descriptors and its 2,048-bit
    fingerprint, concatenated with the dose (3,001 wide), 5 residual dense
    layers of 1,000 with ReLU and dropout 0.1, a linear to one growth
    value."""

    def __init__(self, feats=(942, 3820, 2048), width=1000, tower=3, top=5, drop=0.1):
        super().__init__()
        self.towers = nn.ModuleList(UnoTower(f, [width] * tower, drop) for f in feats)
        self.top = UnoTower(len(feats) * width + 1, [width] * top, drop)
        self.out = nn.Linear(width, 1)

    def forward(self, inp):                                 # (b, 942), (b, 3820), (b, 2048), (b, 1)
        *xs, dose = inp
        hs = [t(x) for t, x in zip(self.towers, xs)]        # 3 x (b, 1000)
        h = torch.cat(hs + [dose.to(hs[0].dtype)], dim=1)   # b, 3001
        return self.out(self.top(h)).squeeze(1)             # b


def uno(batch, device):
    def make():
        return ((torch.randn(batch, 942, device=device),
                 torch.randn(batch, 3820, device=device),
                 torch.randint(0, 2, (batch, 2048), device=device).float(),
                 torch.rand(batch, 1, device=device)),
                torch.rand(batch, device=device))          # growth in [0, 1)
    return Uno(), make, _mse_loss, "sgd_momentum"


class Dice(nn.Module):
    """DIN's Dice activation as DeepCTR writes it: p = sigmoid(BatchNorm(x))
    over the features (b x t, 80 becomes b, 80, t for BatchNorm1d), then
    p x + (1 - p) alpha x with alpha learned per feature."""

    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm1d(c, eps=1e-8)
        self.alpha = nn.Parameter(torch.zeros(c))

    def forward(self, x):                                   # b, t, c
        p = torch.sigmoid(self.bn(x.transpose(1, 2)).transpose(1, 2))
        return p * x + (1 - p) * self.alpha * x


class DIN(nn.Module):
    """A Deep Interest Network (Zhou et al. 2018): items (1,000,000 x 64)
    and categories (10,000 x 64) in dense nn.Embedding tables, a behaviour
    and the candidate each 128 wide (item and category concatenated); the
    local activation unit scores every behaviour from [q, k, q - k, q k]
    (512) by an MLP 80 -> 40 -> 1 with Dice, the scores zeroed at the
    padding (no softmax, as the paper) and the behaviours sum-pooled by
    those weights (bmm); then BatchNorm1d of [pooled, candidate, pooled x
    candidate] (384) and an MLP 200 -> 80 -> 2 with PReLU."""

    def __init__(self, items=1000000, cats=10000, d=64):
        super().__init__()
        self.item, self.cat = nn.Embedding(items, d), nn.Embedding(cats, d)
        e = 2 * d
        self.att1, self.act1 = nn.Linear(4 * e, 80), Dice(80)
        self.att2, self.act2 = nn.Linear(80, 40), Dice(40)
        self.att3 = nn.Linear(40, 1)
        self.bn = nn.BatchNorm1d(3 * e)
        self.mlp = nn.Sequential(nn.Linear(3 * e, 200), nn.PReLU(200), nn.Linear(200, 80), nn.PReLU(80),
                                 nn.Linear(80, 2))

    def forward(self, inp):
        hist_i, hist_c, cand_i, cand_c, lens = inp          # b, 50; b, 50; b; b; b
        keys = torch.cat([self.item(hist_i), self.cat(hist_c)], dim=-1)   # b, 50, 128
        q = torch.cat([self.item(cand_i), self.cat(cand_c)], dim=-1)      # b, 128
        qs = q.unsqueeze(1).expand_as(keys)
        s = self.act1(self.att1(torch.cat([qs, keys, qs - keys, qs * keys], dim=-1)))   # b, 50, 80
        s = self.att3(self.act2(self.att2(s))).transpose(1, 2)             # b, 1, 50
        pad = torch.arange(keys.shape[1], device=lens.device).unsqueeze(0) >= lens.unsqueeze(1)   # b, 50
        s = s.masked_fill(pad.unsqueeze(1), 0.0)
        u = (s @ keys.to(s.dtype)).squeeze(1)                # b, 128: weighted sum pooling
        q = q.to(u.dtype)
        return self.mlp(self.bn(torch.cat([u, q, u * q], dim=1)))   # b, 2


def _behaviour_batch(batch, device, steps, items, cats):
    """Impressions of a behaviour-sequence recommender: item and category
    histories of 1 to `steps` behaviours padded to `steps` (ids 0 in the
    padding), the candidate item and category, the lengths, and a click
    label each."""
    lens = torch.randint(1, steps + 1, (batch,), device=device)
    keep = torch.arange(steps, device=device).unsqueeze(0) < lens.unsqueeze(1)
    hist_i = torch.randint(1, items, (batch, steps), device=device) * keep
    hist_c = torch.randint(1, cats, (batch, steps), device=device) * keep
    return ((hist_i, hist_c, torch.randint(1, items, (batch,), device=device),
             torch.randint(1, cats, (batch,), device=device), lens),
            torch.randint(0, 2, (batch,), device=device))


def din(batch, device):
    """batch: impressions, each a history of 1 to 50 behaviours."""
    return DIN(), lambda: _behaviour_batch(batch, device, 50, 1000000, 10000), _cls_loss, "adam"


class QRNNLayer(nn.Module):
    """A QRNN layer (Bradbury et al. 2017) with fo-pooling: Z, F and O from
    one causal Conv1d of kernel 2 (512 -> 3 x 512, the input padded by one
    step on the left), z = tanh, f and o sigmoid; (1 - f) z taken for the
    whole sequence at once, then c_t = f_t c_{t-1} + (1 - f_t) z_t in a
    Python loop over the steps (a multiply and an add per step, as the
    reference's CPU ForgetMult), h = o c; c_0 is (1 - f_0) z_0."""

    def __init__(self, cin, hidden):
        super().__init__()
        self.conv = nn.Conv1d(cin, 3 * hidden, 2)

    def forward(self, x):                                   # b, 512, t
        g = self.conv(F.pad(x, (1, 0))).permute(2, 0, 1).contiguous()   # t, b, 1536
        z, f, o = g.chunk(3, dim=2)
        f = torch.sigmoid(f)
        u = (1 - f) * torch.tanh(z)                         # t, b, 512
        # unbind, as the reference splits: one backward node for all the steps
        us, fs = u.unbind(0), f.unbind(0)                   # t x (b, 512)
        c, cs = us[0], [us[0]]
        for ft, ut in zip(fs[1:], us[1:]):
            c = ft * c + ut
            cs.append(c)
        return torch.sigmoid(o) * torch.stack(cs)           # t, b, 512


class QRNNLM(nn.Module):
    """A QRNN language model: a 20,000 x 512 embedding, 3 QRNN layers of
    512 with dropout 0.3 on the embedding and between and after the
    layers, the output head tied to the embedding (with its own bias); the
    state starts at zero each step (no carried hidden state)."""

    def __init__(self, vocab=20000, d=512, layers=3, drop=0.3):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(QRNNLayer(d, d) for _ in range(layers))
        self.bias = nn.Parameter(torch.zeros(vocab))
        self.drop = nn.Dropout(drop)

    def forward(self, idx):                                 # b, 128
        x = self.drop(self.emb(idx)).transpose(1, 2)        # b, 512, 128
        for layer in self.layers:
            x = self.drop(layer(x)).permute(1, 2, 0)        # b, 512, 128
        return F.linear(x.transpose(1, 2), self.emb.weight, self.bias)   # b, 128, 20000


def qrnn(batch, device):
    return QRNNLM(), _tokens(batch, 128, 20000, device), _lm_loss, "adam"


class ResBlock3d(nn.Module):
    """A residual block of two 3x3x3 Conv3d, each followed by GroupNorm of
    8 groups (Fp32GroupNorm, for CPU autocast under 1.13), LeakyReLU 0.01
    after the first and after the sum; a 1x1x1 Conv3d on the residual
    where the channels change."""

    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv3d(cin, cout, 3, padding=1, bias=False)
        self.conv2 = nn.Conv3d(cout, cout, 3, padding=1, bias=False)
        self.norm1, self.norm2 = Fp32GroupNorm(8, cout), Fp32GroupNorm(8, cout)
        self.short = nn.Conv3d(cin, cout, 1, bias=False) if cin != cout else nn.Identity()

    def forward(self, x):
        h = self.norm2(self.conv2(F.leaky_relu(self.norm1(self.conv1(x)), 0.01)))
        return F.leaky_relu(h + self.short(x), 0.01)


class ResUNet3d(nn.Module):
    """A 3-D residual U-Net on 1 x 128^3 volumes: a ResBlock3d per level
    (16, 32, 64, 128 channels at 128^3 .. 16^3, 256 at the 8^3
    bottleneck), each level below the first entered by a 3x3x3 stride-2
    Conv3d with GroupNorm and LeakyReLU; the decoder up by trilinear
    F.interpolate (scale 2) and a 1x1x1 Conv3d halving the channels, the
    skip concatenated, a ResBlock3d; a 1x1x1 Conv3d to 3 classes."""

    def __init__(self, widths=(16, 32, 64, 128, 256), classes=3):
        super().__init__()
        self.enc = nn.ModuleList([ResBlock3d(1, widths[0])])
        self.down = nn.ModuleList()
        for cin, cout in zip(widths, widths[1:]):
            self.down.append(nn.Sequential(nn.Conv3d(cin, cout, 3, stride=2, padding=1, bias=False),
                                           Fp32GroupNorm(8, cout), nn.LeakyReLU(0.01)))
            self.enc.append(ResBlock3d(cout, cout))
        self.up = nn.ModuleList(nn.Conv3d(cin, cout, 1) for cin, cout in zip(widths[:0:-1], widths[-2::-1]))
        self.dec = nn.ModuleList(ResBlock3d(2 * c, c) for c in widths[-2::-1])
        self.out = nn.Conv3d(widths[0], classes, 1)

    def forward(self, x):                                   # b, 1, 128, 128, 128
        skips = [self.enc[0](x)]                            # b, 16, 128^3
        for down, enc in zip(self.down, self.enc[1:]):
            skips.append(enc(down(skips[-1])))              # .. b, 256, 8^3
        h = skips.pop()
        for up, dec in zip(self.up, self.dec):
            h = up(F.interpolate(h, scale_factor=2, mode="trilinear", align_corners=False))
            h = dec(torch.cat([h, skips.pop()], dim=1))
        return self.out(h)                                  # b, 3, 128^3


def _dice_ce_loss(out, y):
    """Cross-entropy plus the soft Dice loss (1 - the mean over classes of
    2 |p y| / (|p| + |y|), over the batch and the voxels) of the softmax
    against one-hot labels, as nnU-Net's."""
    p = torch.softmax(out, dim=1)
    oh = F.one_hot(y, out.shape[1]).permute(0, 4, 1, 2, 3).to(p.dtype)   # b, 3, d, h, w
    dims = (0, 2, 3, 4)
    dice = (2 * (p * oh).sum(dims) + 1e-5) / (p.sum(dims) + oh.sum(dims) + 1e-5)
    return F.cross_entropy(out, y) + 1 - dice.mean()


def resunet3d(batch, device):
    def make():
        return (torch.randn(batch, 1, 128, 128, 128, device=device),
                torch.randint(0, 3, (batch, 128, 128, 128), device=device))
    return ResUNet3d(), make, _dice_ce_loss, "adamw"


class ConvBN(nn.Sequential):
    """Inception-v3's BasicConv2d: a Conv2d without bias, BatchNorm (eps
    0.001), ReLU; kernel and padding may be (h, w) pairs."""

    def __init__(self, cin, cout, k, stride=1, padding=0):
        super().__init__(nn.Conv2d(cin, cout, k, stride, padding, bias=False),
                         nn.BatchNorm2d(cout, eps=0.001), nn.ReLU(inplace=True))


class InceptionA(nn.Module):
    """35x35: 1x1; 1x1 -> 5x5; 1x1 -> 3x3 -> 3x3; 3x3 avg pool -> 1x1."""

    def __init__(self, cin, pool):
        super().__init__()
        self.b1 = ConvBN(cin, 64, 1)
        self.b5 = nn.Sequential(ConvBN(cin, 48, 1), ConvBN(48, 64, 5, padding=2))
        self.b3 = nn.Sequential(ConvBN(cin, 64, 1), ConvBN(64, 96, 3, padding=1), ConvBN(96, 96, 3, padding=1))
        self.bp = ConvBN(cin, pool, 1)

    def forward(self, x):
        bp = self.bp(F.avg_pool2d(x, 3, 1, 1))
        return torch.cat([self.b1(x), self.b5(x), self.b3(x), bp], dim=1)


class InceptionB(nn.Module):
    """35 -> 17: 3x3 stride 2; 1x1 -> 3x3 -> 3x3 stride 2; 3x3 max pool."""

    def __init__(self, cin):
        super().__init__()
        self.b3 = ConvBN(cin, 384, 3, stride=2)
        self.bd = nn.Sequential(ConvBN(cin, 64, 1), ConvBN(64, 96, 3, padding=1), ConvBN(96, 96, 3, stride=2))

    def forward(self, x):
        return torch.cat([self.b3(x), self.bd(x), F.max_pool2d(x, 3, 2)], dim=1)


class InceptionC(nn.Module):
    """17x17 with factorised 7x7s: 1x1; 1x1 -> 1x7 -> 7x1; 1x1 -> 7x1 ->
    1x7 -> 7x1 -> 1x7; 3x3 avg pool -> 1x1."""

    def __init__(self, cin, c7):
        super().__init__()
        self.b1 = ConvBN(cin, 192, 1)
        self.b7 = nn.Sequential(ConvBN(cin, c7, 1), ConvBN(c7, c7, (1, 7), padding=(0, 3)),
                                ConvBN(c7, 192, (7, 1), padding=(3, 0)))
        self.bd = nn.Sequential(ConvBN(cin, c7, 1), ConvBN(c7, c7, (7, 1), padding=(3, 0)),
                                ConvBN(c7, c7, (1, 7), padding=(0, 3)), ConvBN(c7, c7, (7, 1), padding=(3, 0)),
                                ConvBN(c7, 192, (1, 7), padding=(0, 3)))
        self.bp = ConvBN(cin, 192, 1)

    def forward(self, x):
        bp = self.bp(F.avg_pool2d(x, 3, 1, 1))
        return torch.cat([self.b1(x), self.b7(x), self.bd(x), bp], dim=1)


class InceptionD(nn.Module):
    """17 -> 8: 1x1 -> 3x3 stride 2; 1x1 -> 1x7 -> 7x1 -> 3x3 stride 2;
    3x3 max pool."""

    def __init__(self, cin):
        super().__init__()
        self.b3 = nn.Sequential(ConvBN(cin, 192, 1), ConvBN(192, 320, 3, stride=2))
        self.b7 = nn.Sequential(ConvBN(cin, 192, 1), ConvBN(192, 192, (1, 7), padding=(0, 3)),
                                ConvBN(192, 192, (7, 1), padding=(3, 0)), ConvBN(192, 192, 3, stride=2))

    def forward(self, x):
        return torch.cat([self.b3(x), self.b7(x), F.max_pool2d(x, 3, 2)], dim=1)


class InceptionE(nn.Module):
    """8x8 with expanded 1x3 / 3x1 pairs: 1x1; 1x1 -> (1x3, 3x1); 1x1 ->
    3x3 -> (1x3, 3x1); 3x3 avg pool -> 1x1."""

    def __init__(self, cin):
        super().__init__()
        self.b1 = ConvBN(cin, 320, 1)
        self.b3 = ConvBN(cin, 384, 1)
        self.b3a, self.b3b = ConvBN(384, 384, (1, 3), padding=(0, 1)), ConvBN(384, 384, (3, 1), padding=(1, 0))
        self.bd = nn.Sequential(ConvBN(cin, 448, 1), ConvBN(448, 384, 3, padding=1))
        self.bda, self.bdb = ConvBN(384, 384, (1, 3), padding=(0, 1)), ConvBN(384, 384, (3, 1), padding=(1, 0))
        self.bp = ConvBN(cin, 192, 1)

    def forward(self, x):
        b3, bd = self.b3(x), self.bd(x)
        bp = self.bp(F.avg_pool2d(x, 3, 1, 1))
        return torch.cat([self.b1(x), self.b3a(b3), self.b3b(b3), self.bda(bd), self.bdb(bd), bp], dim=1)


class InceptionV3(nn.Module):
    """Inception-v3 at 299x299, torchvision's layout at full depth: the
    stem (3x3 convolutions and max pools to 192 x 35x35), 3 InceptionA,
    InceptionB, 4 InceptionC (7x7 factorised, widths 128, 160, 160, 192),
    InceptionD, 2 InceptionE (2,048 x 8x8), global average pool, dropout
    0.5, a linear to 1,000 classes; the auxiliary head on the 17x17 map
    (5x5 stride-3 avg pool, 1x1 to 128, 5x5 to 768, global pool, linear).
    Returns the main and the auxiliary logits side by side (b, 2,000)."""

    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(ConvBN(3, 32, 3, stride=2), ConvBN(32, 32, 3), ConvBN(32, 64, 3, padding=1),
                                  nn.MaxPool2d(3, 2), ConvBN(64, 80, 1), ConvBN(80, 192, 3), nn.MaxPool2d(3, 2))
        self.mixed5 = nn.Sequential(InceptionA(192, 32), InceptionA(256, 64), InceptionA(288, 64))
        self.mixed6 = nn.Sequential(InceptionB(288), *[InceptionC(768, c7) for c7 in (128, 160, 160, 192)])
        self.aux = nn.Sequential(nn.AvgPool2d(5, 3), ConvBN(768, 128, 1), ConvBN(128, 768, 5),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(768, classes))
        self.mixed7 = nn.Sequential(InceptionD(768), InceptionE(1280), InceptionE(2048))
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(2048, classes)

    def forward(self, x):                                   # b, 3, 299, 299
        x = self.mixed6(self.mixed5(self.stem(x)))          # b, 768, 17, 17
        aux = self.aux(x)                                   # b, 1000
        x = self.mixed7(x).mean((2, 3))                     # b, 2048
        return torch.cat([self.fc(self.drop(x)), aux], dim=1)   # b, 2000


def _inception_loss(out, y):
    """Label-smoothed (0.1) cross-entropy of the main logits plus 0.4 times
    that of the auxiliary ones."""
    main, aux = out.chunk(2, dim=1)
    return (F.cross_entropy(main, y, label_smoothing=0.1)
            + 0.4 * F.cross_entropy(aux, y, label_smoothing=0.1))


def inception(batch, device):
    return InceptionV3(), _images(batch, device, 299), _inception_loss, "sgd_momentum"


# -- seventeenth round ---------------------------------------------------------
# Models recorded after the sixteenth round: a CycleGAN on 256x256 images
# (two ResNet generators: reflection padding, a 7x7 stem, stride-2
# convolutions down, 9 residual blocks of 256 channels at 64x64,
# ConvTranspose2d up, InstanceNorm2d; two 70x70 PatchGAN discriminators of
# 4x4 convolutions; the generators' and the discriminators' updates in one
# backward: the generators' adversarial passes run the discriminators on
# detached weights, the discriminators' passes see detached fakes), a
# StyleGAN2-shaped generator at 128x128 (an 8 x 512 mapping MLP, modulated
# and demodulated 3x3 convolutions run as one grouped convolution with a
# group per sample, noise injection, bilinear upsampling, skip toRGB
# outputs) against a plain convolutional discriminator with the
# non-saturating logistic loss, a Temporal Fusion Transformer (variable
# selection networks of gated residual networks, one per input, over 20
# inputs embedded to 160; LSTM encoder and decoder over 168 + 24 steps;
# interpretable multi-head attention written out with matmul, a causal
# mask and softmax; a quantile loss), a Gated PixelCNN on 32x32 images
# (vertical and horizontal stacks of cropped convolutions, the first
# layer's 7x7 masked by multiplying its weights by fixed masks, tanh x
# sigmoid gates, a 256-way softmax per colour channel) and N-BEATS (the
# generic architecture: 30 blocks of 4 Linear 512 on 336-step lookbacks,
# backcasts subtracted in turn, sMAPE; thousands of rows per batch).

def _fwd(m, x, frozen):
    """m(x) for an nn.Conv2d or nn.Linear; with frozen, on its detached
    weights: a GAN's generator step backpropagates through the
    discriminator to its input without gradients for its weights (what
    requires_grad_(False) on the discriminator does in the reference
    code), so that one backward serves both updates."""
    if not frozen:
        return m(x)
    b = None if m.bias is None else m.bias.detach()
    if isinstance(m, nn.Linear):
        return F.linear(x, m.weight.detach(), b)
    return F.conv2d(x, m.weight.detach(), b, m.stride, m.padding)


class CGResBlock(nn.Module):
    """CycleGAN's ResnetBlock: reflection pad 1, 3x3 Conv2d, InstanceNorm2d,
    ReLU, reflection pad 1, 3x3 Conv2d, InstanceNorm2d, added to the input
    (the norms without affine parameters, as the reference's `instance`)."""

    def __init__(self, c):
        super().__init__()
        self.net = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c), nn.ReLU(True),
                                 nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c))

    def forward(self, x):
        return x + self.net(x)


class ResnetGenerator(nn.Module):
    """CycleGAN's resnet_9blocks generator (ngf 64): reflection pad 3, 7x7
    Conv2d 3 -> 64, two 3x3 stride-2 Conv2d (128, 256; 256 -> 64x64), 9
    CGResBlock of 256, two 3x3 stride-2 ConvTranspose2d (output padding 1;
    128, 64), reflection pad 3, 7x7 Conv2d to 3, tanh; InstanceNorm2d
    (affine=False) and ReLU after every convolution but the last."""

    def __init__(self, ngf=64, blocks=9):
        super().__init__()
        layers = [nn.ReflectionPad2d(3), nn.Conv2d(3, ngf, 7), nn.InstanceNorm2d(ngf), nn.ReLU(True)]
        c = ngf
        for _ in range(2):
            layers += [nn.Conv2d(c, 2 * c, 3, stride=2, padding=1), nn.InstanceNorm2d(2 * c), nn.ReLU(True)]
            c *= 2
        layers += [CGResBlock(c) for _ in range(blocks)]
        for _ in range(2):
            layers += [nn.ConvTranspose2d(c, c // 2, 3, stride=2, padding=1, output_padding=1),
                       nn.InstanceNorm2d(c // 2), nn.ReLU(True)]
            c //= 2
        layers += [nn.ReflectionPad2d(3), nn.Conv2d(c, 3, 7), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, x):                                   # b, 3, 256, 256
        return self.net(x)                                  # b, 3, 256, 256


class PatchGAN(nn.Module):
    """The 70x70 PatchGAN (NLayerDiscriminator, ndf 64, 3 layers): 4x4
    Conv2d 3 -> 64 -> 128 -> 256 at stride 2, 512 at stride 1, then 1 at
    stride 1 (padding 1: 256x256 -> 30x30 logits); InstanceNorm2d
    (affine=False) after all but the first and the last, LeakyReLU 0.2."""

    def __init__(self, ndf=64):
        super().__init__()
        chans = [3, ndf, 2 * ndf, 4 * ndf, 8 * ndf]
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 4, stride=2 if i < 3 else 1, padding=1)
                                   for i, (a, b) in enumerate(zip(chans, chans[1:])))
        self.out = nn.Conv2d(8 * ndf, 1, 4, padding=1)

    def forward(self, x, frozen=False):                     # b, 3, 256, 256
        for i, conv in enumerate(self.convs):
            x = _fwd(conv, x, frozen)
            if i:
                x = F.instance_norm(x)
            x = F.leaky_relu(x, 0.2, inplace=True)
        return _fwd(self.out, x, frozen)                    # b, 1, 30, 30


def _lsgan(d, target):
    """LSGAN's loss per sample: the mean squared distance of the patch
    logits to the target label (in fp32)."""
    return ((d.float() - target) ** 2).mean((1, 2, 3))


class CycleGAN(nn.Module):
    """CycleGAN (Zhu et al. 2017) on unpaired 256x256 images of domains A
    and B: generators A -> B and B -> A, a PatchGAN per domain. One
    training step as the reference's optimize_parameters: fake_B =
    G_AB(A), rec_A = G_BA(fake_B), fake_A = G_BA(B), rec_B = G_AB(fake_A);
    the generators' loss is LSGAN's on D_B(fake_B) and D_A(fake_A) with
    the discriminators frozen (detached weights) plus 10 x the L1 cycle
    losses |rec_A - A| and |rec_B - B|; the discriminators' loss is half
    the LSGAN losses on the real images and on the detached fakes. The
    terms touch disjoint parameters, so their sum's one backward gives
    each network the gradient of its own loss. The identity loss and the
    50-image pool of past fakes are left out. Returns per sample the
    generators' adversarial, cycle and discriminators' terms (b, 3)."""

    def __init__(self):
        super().__init__()
        self.g_ab, self.g_ba = ResnetGenerator(), ResnetGenerator()
        self.d_a, self.d_b = PatchGAN(), PatchGAN()

    def forward(self, inp):
        a, b = inp                                          # b, 3, 256, 256 each, in [-1, 1]
        fake_b, fake_a = self.g_ab(a), self.g_ba(b)
        rec_a, rec_b = self.g_ba(fake_b), self.g_ab(fake_a)
        adv = _lsgan(self.d_b(fake_b, frozen=True), 1.0) + _lsgan(self.d_a(fake_a, frozen=True), 1.0)
        cyc = (rec_a.float() - a).abs().mean((1, 2, 3)) + (rec_b.float() - b).abs().mean((1, 2, 3))
        d_b = _lsgan(self.d_b(b), 1.0) + _lsgan(self.d_b(fake_b.detach()), 0.0)
        d_a = _lsgan(self.d_a(a), 1.0) + _lsgan(self.d_a(fake_a.detach()), 0.0)
        return torch.stack([adv, cyc, 0.5 * (d_a + d_b)], dim=1)   # b, 3


def _cyclegan_loss(out, y):
    """The generators' LSGAN terms plus 10 x the cycle terms, plus the
    discriminators' terms (computed by the model; y is unused)."""
    return out[:, 0].mean() + 10.0 * out[:, 1].mean() + out[:, 2].mean()


def cyclegan(batch, device):
    def make():
        return ((torch.rand(batch, 3, 256, 256, device=device) * 2 - 1,
                 torch.rand(batch, 3, 256, 256, device=device) * 2 - 1), None)
    return CycleGAN(), make, _cyclegan_loss, "adam"


class ModConv(nn.Module):
    """StyleGAN2's modulated convolution (fused_modconv): styles from an
    affine of w (bias 1), the weight (equalised-lr gain 1 / sqrt(fan-in))
    scaled per sample and input channel, demodulated per output channel
    by rsqrt of its sum of squares, and all samples convolved at once by
    one F.conv2d over b x cin channels with groups = b; the bias added
    after (the toRGB layers: 1x1, no demodulation)."""

    def __init__(self, cin, cout, k, wdim=512, demod=True):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(cout, cin, k, k))
        self.bias = nn.Parameter(torch.zeros(cout))
        self.affine = nn.Linear(wdim, cin)
        nn.init.ones_(self.affine.bias)
        self.gain, self.demod, self.pad = 1 / math.sqrt(cin * k * k), demod, k // 2

    def forward(self, x, w):                                # b, cin, h, w; b, 512
        b, cin, h, wd = x.shape
        s = self.affine(w)                                  # b, cin
        wt = self.weight.unsqueeze(0) * self.gain * s[:, None, :, None, None]   # b, cout, cin, k, k
        if self.demod:
            wt = wt * torch.rsqrt(wt.square().sum((2, 3, 4), keepdim=True) + 1e-8)
        y = F.conv2d(x.reshape(1, b * cin, h, wd), wt.reshape(-1, cin, *wt.shape[3:]),
                     padding=self.pad, groups=b)            # 1, b * cout, h, w
        y = y.reshape(b, -1, h, wd)
        return y + self.bias.to(y.dtype)[None, :, None, None]


class SynthLayer(nn.Module):
    """A StyleGAN2 synthesis layer: (bilinear 2x upsampling,) a 3x3
    ModConv, per-pixel Gaussian noise times a learned strength, leaky ReLU
    0.2 times sqrt(2)."""

    def __init__(self, cin, cout, up=False):
        super().__init__()
        self.conv = ModConv(cin, cout, 3)
        self.noise = nn.Parameter(torch.zeros(()))
        self.up = up

    def forward(self, x, w):
        if self.up:
            x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        x = self.conv(x, w)
        b, _, h, wd = x.shape
        x = x + self.noise.to(x.dtype) * torch.randn(b, 1, h, wd, device=x.device, dtype=x.dtype)
        return F.leaky_relu(x, 0.2) * math.sqrt(2)


def _sg_channels(res):
    """StyleGAN2 config-f's widths: min(16,384 / resolution, 512)."""
    return min(16384 // res, 512)


class StyleGAN2Generator(nn.Module):
    """A StyleGAN2-shaped generator at 128x128: z (512) normalised by its
    second moment, a mapping MLP of 8 Linear 512 with leaky ReLU 0.2 to w
    (one w for every layer: no style mixing, no truncation); synthesis
    from a learned 512 x 4x4 constant: a SynthLayer at 4x4, then per
    resolution 8 .. 128 an upsampling SynthLayer and a SynthLayer (512
    channels to 32x32, 256 at 64x64, 128 at 128x128); the skip
    architecture: a 1x1 toRGB ModConv per resolution added to the
    bilinearly upsampled image."""

    def __init__(self, res=128, wdim=512, mapping=8):
        super().__init__()
        layers = []
        for _ in range(mapping):
            layers += [nn.Linear(wdim, wdim), nn.LeakyReLU(0.2)]
        self.mapping = nn.Sequential(*layers)
        self.const = nn.Parameter(torch.randn(_sg_channels(4), 4, 4))
        self.conv4, self.rgb4 = SynthLayer(512, 512), ModConv(512, 3, 1, demod=False)
        self.blocks = nn.ModuleList()
        r = 8
        while r <= res:
            cin, cout = _sg_channels(r // 2), _sg_channels(r)
            self.blocks.append(nn.ModuleList([SynthLayer(cin, cout, up=True), SynthLayer(cout, cout),
                                              ModConv(cout, 3, 1, demod=False)]))
            r *= 2

    def forward(self, z):                                   # b, 512
        z = z * torch.rsqrt(z.square().mean(1, keepdim=True) + 1e-8)
        w = self.mapping(z)                                 # b, 512
        x = self.conv4(self.const.unsqueeze(0).expand(z.shape[0], -1, -1, -1), w)   # b, 512, 4, 4
        img = self.rgb4(x, w)
        for up, conv, rgb in self.blocks:
            x = conv(up(x, w), w)
            img = F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=False) + rgb(x, w).to(img.dtype)
        return img                                          # b, 3, 128, 128


class ConvDiscriminator(nn.Module):
    """A plain convolutional discriminator at 128x128 with the generator's
    widths (StyleGAN's original layout without blur, minibatch stddev or
    residuals): a 1x1 fromRGB, per resolution 128 .. 8 a 3x3 Conv2d and a
    3x3 stride-2 Conv2d to the next width, at 4x4 a 3x3 Conv2d, a Linear
    8,192 -> 512 and a Linear to one logit; leaky ReLU 0.2."""

    def __init__(self, res=128):
        super().__init__()
        self.frgb = nn.Conv2d(3, _sg_channels(res), 1)
        self.convs = nn.ModuleList()
        r = res
        while r > 4:
            c, c2 = _sg_channels(r), _sg_channels(r // 2)
            self.convs.extend([nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c2, 3, stride=2, padding=1)])
            r //= 2
        self.conv4 = nn.Conv2d(512, 512, 3, padding=1)
        self.fc, self.out = nn.Linear(512 * 16, 512), nn.Linear(512, 1)

    def forward(self, x, frozen=False):                     # b, 3, 128, 128
        x = F.leaky_relu(_fwd(self.frgb, x, frozen), 0.2)
        for conv in self.convs:
            x = F.leaky_relu(_fwd(conv, x, frozen), 0.2)    # .. b, 512, 4, 4
        x = F.leaky_relu(_fwd(self.conv4, x, frozen), 0.2).flatten(1)
        return _fwd(self.out, F.leaky_relu(_fwd(self.fc, x, frozen), 0.2), frozen)   # b, 1


class StyleGAN2(nn.Module):
    """A StyleGAN2 training step without its lazy regularisers (R1 and
    path length): the generator's non-saturating loss softplus(-D(G(z)))
    through the frozen discriminator (detached weights), the
    discriminator's softplus(D(fake)) on the detached fakes plus
    softplus(-D(real)), summed in one backward (disjoint parameters).
    Returns the two terms per sample (b, 2)."""

    def __init__(self):
        super().__init__()
        self.g, self.d = StyleGAN2Generator(), ConvDiscriminator()

    def forward(self, inp):
        z, real = inp                                       # b, 512; b, 3, 128, 128
        fake = self.g(z)
        g = F.softplus(-self.d(fake, frozen=True).float())
        d = F.softplus(self.d(fake.detach()).float()) + F.softplus(-self.d(real).float())
        return torch.cat([g, d], dim=1)                     # b, 2


def _gan_sum_loss(out, y):
    """The mean of the model's per-sample loss terms, summed (y is unused)."""
    return out.mean(0).sum()


def stylegan2(batch, device):
    def make():
        return ((torch.randn(batch, 512, device=device),
                 torch.rand(batch, 3, 128, 128, device=device) * 2 - 1), None)
    return StyleGAN2(), make, _gan_sum_loss, "adam"


class GRN(nn.Module):
    """TFT's gated residual network: Linear, (plus a Linear of the context
    where there is one,) ELU, Linear, dropout 0.1, a GLU gate (Linear to
    twice the output, F.glu), the input (through a Linear where the widths
    differ) added, LayerNorm (in fp32, as CUDA autocast runs it)."""

    def __init__(self, cin, hidden, cout, ctx=0, drop=0.1):
        super().__init__()
        self.fc2, self.fc1 = nn.Linear(cin, hidden), nn.Linear(hidden, hidden)
        self.ctx = nn.Linear(ctx, hidden, bias=False) if ctx else None
        self.gate = nn.Linear(hidden, 2 * cout)
        self.skip = nn.Linear(cin, cout) if cin != cout else None
        self.norm = nn.LayerNorm(cout)
        self.drop = drop

    def forward(self, a, c=None):                           # .., cin; .., ctx (broadcast)
        h = self.fc2(a)
        if c is not None:
            h = h + self.ctx(c)
        h = F.dropout(self.fc1(F.elu(h)), self.drop, self.training)
        h = F.glu(self.gate(h), dim=-1)
        skip = a if self.skip is None else self.skip(a)
        return self.norm((skip + h).float())                # .., cout


class VSN(nn.Module):
    """TFT's variable selection network over n inputs embedded to d: a GRN
    of the n embeddings concatenated (and the static context) to n
    weights by softmax, a GRN of d per input, the weighted sum."""

    def __init__(self, n, d, ctx=0):
        super().__init__()
        self.flat = GRN(n * d, d, n, ctx)
        self.grns = nn.ModuleList(GRN(d, d, d) for _ in range(n))

    def forward(self, xs, c=None):                          # n x (b, [t,] d)
        v = torch.softmax(self.flat(torch.cat(xs, dim=-1), c), dim=-1)   # b, [t,] n
        h = torch.stack([g(x) for g, x in zip(self.grns, xs)], dim=-1)   # b, [t,] d, n
        return (h * v.unsqueeze(-2)).sum(-1)                # b, [t,] d


class GateAddNorm(nn.Module):
    """TFT's gated skip connection: dropout, a GLU gate, the skip added,
    LayerNorm (in fp32)."""

    def __init__(self, d, drop=0.1):
        super().__init__()
        self.gate, self.norm, self.drop = nn.Linear(d, 2 * d), nn.LayerNorm(d), drop

    def forward(self, x, skip):
        h = F.glu(self.gate(F.dropout(x, self.drop, self.training)), dim=-1)
        return self.norm((h + skip).float())


class InterpretableMHA(nn.Module):
    """TFT's interpretable multi-head attention: 4 heads with their own
    query and key projections (160 -> 4 x 40) and one value projection
    (160 -> 40) shared by all heads; scaled dot products by matmul, a
    causal mask by masked_fill, softmax, dropout; the heads' outputs
    averaged, then a Linear 40 -> 160."""

    def __init__(self, d=160, heads=4, drop=0.1):
        super().__init__()
        self.heads, self.dh, self.drop = heads, d // heads, drop
        self.q, self.k = nn.Linear(d, d), nn.Linear(d, d)
        self.v, self.o = nn.Linear(d, d // heads), nn.Linear(d // heads, d)

    def forward(self, x):                                   # b, t, d
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.dh).transpose(1, 2)   # b, 4, t, 40
        k = self.k(x).view(b, t, self.heads, self.dh).transpose(1, 2)
        v = self.v(x).unsqueeze(1)                          # b, 1, t, 40
        s = (q @ k.transpose(-2, -1)) / math.sqrt(self.dh)  # b, 4, t, t
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        a = F.dropout(s.masked_fill(mask, float("-inf")).softmax(-1), self.drop, self.training)
        return self.o((a.to(v.dtype) @ v).mean(1))          # b, t, 40 -> b, t, d


class TFT(nn.Module):
    """A Temporal Fusion Transformer (Lim et al. 2021) forecasting 24 steps
    from 168, hidden 160, over 20 inputs: 2 static categoricals (370 and
    12 values), 10 observed reals (the target among them) and 8 known
    inputs (6 reals, hour of day and day of week), each embedded to 160 (a
    Linear 1 -> 160 per real, an nn.Embedding per categorical). A static
    VSN and 4 GRNs give the contexts for variable selection, enrichment
    and the LSTM's initial h and c; VSNs over the 18 past and the 8 future
    inputs (GRNs of 160 per input per step); an LSTM encoder over the 168
    past steps, an LSTM decoder over the 24 future ones from its state;
    GateAddNorm with the selected inputs; a static enrichment GRN;
    InterpretableMHA over all 192 steps, causal; GateAddNorm; a
    position-wise GRN; GateAddNorm with the LSTM's; a Linear to 3
    quantiles for the 24 future steps."""

    def __init__(self, d=160, static=(370, 12), observed=10, known_real=6, known_cat=(24, 7)):
        super().__init__()
        self.static_emb = nn.ModuleList(nn.Embedding(v, d) for v in static)
        self.obs_emb = nn.ModuleList(nn.Linear(1, d) for _ in range(observed))
        self.known_emb = nn.ModuleList(nn.Linear(1, d) for _ in range(known_real))
        self.cat_emb = nn.ModuleList(nn.Embedding(v, d) for v in known_cat)
        n_known = known_real + len(known_cat)
        self.static_vsn = VSN(len(static), d)
        self.ctx = nn.ModuleList(GRN(d, d, d) for _ in range(4))   # selection, enrichment, h, c
        self.past_vsn = VSN(observed + n_known, d, ctx=d)
        self.fut_vsn = VSN(n_known, d, ctx=d)
        self.enc = nn.LSTM(d, d, batch_first=True)
        self.dec = nn.LSTM(d, d, batch_first=True)
        self.lstm_gate = GateAddNorm(d)
        self.enrich = GRN(d, d, d, ctx=d)
        self.attn = InterpretableMHA(d, 4)
        self.attn_gate = GateAddNorm(d)
        self.pos_grn = GRN(d, d, d)
        self.out_gate = GateAddNorm(d)
        self.head = nn.Linear(d, 3)

    def _known(self, real, cat):                            # b, t, 6; b, t, 2
        return ([e(r.unsqueeze(-1)) for e, r in zip(self.known_emb, real.unbind(-1))]
                + [e(c) for e, c in zip(self.cat_emb, cat.unbind(-1))])   # 8 x (b, t, 160)

    def forward(self, inp):
        stat, obs, p_real, p_cat, f_real, f_cat = inp       # b, 2; b, 168, 10; b, 168, 6; b, 168, 2; b, 24, 6; b, 24, 2
        s = self.static_vsn([e(c) for e, c in zip(self.static_emb, stat.unbind(-1))])   # b, 160
        c_sel, c_enr, c_h, c_c = (g(s) for g in self.ctx)   # 4 x (b, 160)
        past = self.past_vsn([e(o.unsqueeze(-1)) for e, o in zip(self.obs_emb, obs.unbind(-1))]
                             + self._known(p_real, p_cat), c_sel.unsqueeze(1))   # b, 168, 160
        fut = self.fut_vsn(self._known(f_real, f_cat), c_sel.unsqueeze(1))       # b, 24, 160
        # states in the input's dtype, so that both LSTMs see one type
        enc, (h, c) = self.enc(past, (c_h.unsqueeze(0).to(past.dtype), c_c.unsqueeze(0).to(past.dtype)))
        dec, _ = self.dec(fut, (h.to(fut.dtype), c.to(fut.dtype)))
        xi = torch.cat([past, fut], dim=1)                  # b, 192, 160
        phi = self.lstm_gate(torch.cat([enc, dec], dim=1), xi)
        e = self.enrich(phi, c_enr.unsqueeze(1))
        x = self.attn_gate(self.attn(e), e)
        x = self.out_gate(self.pos_grn(x), phi)             # b, 192, 160
        return self.head(x[:, past.shape[1]:])              # b, 24, 3


_QUANTILES = (0.1, 0.5, 0.9)


def _quantile_loss(out, y):
    """TFT's quantile (pinball) loss, averaged over the steps, the samples
    and the 3 quantiles: max(q e, (q - 1) e) with e = y - prediction."""
    loss = 0.0
    for i, q in enumerate(_QUANTILES):
        e = y - out[..., i]
        loss = loss + torch.max(q * e, (q - 1) * e).mean()
    return loss / len(_QUANTILES)


def tft(batch, device):
    def cat(t):                                             # hour of day, day of week: b, t, 2
        return torch.stack([torch.randint(0, v, (batch, t), device=device) for v in (24, 7)], dim=2)

    def make():
        static = torch.stack([torch.randint(0, v, (batch,), device=device) for v in (370, 12)], dim=1)
        return ((static, torch.randn(batch, 168, 10, device=device),
                 torch.randn(batch, 168, 6, device=device), cat(168),
                 torch.randn(batch, 24, 6, device=device), cat(24)),
                torch.randn(batch, 24, device=device))
    return TFT(), make, _quantile_loss, "adam"


class GatedPixelLayer(nn.Module):
    """A Gated PixelCNN layer (van den Oord et al. 2016) of c channels and
    kernel k: the vertical stack a (k // 2 + 1) x k Conv2d to 2c, padded
    k // 2 all round and cropped to the first rows (each row sees the rows
    above, and its own only through the stack below, never the input's);
    the horizontal stack a 1 x (k // 2 + 1) Conv2d to 2c cropped likewise
    to the pixels on the left, plus a 1x1 Conv2d of the vertical stack;
    both gated by tanh x sigmoid; the horizontal one through a 1x1 Conv2d
    and added to its input. The first layer (type A, no residual) masks
    the current row and pixel out by multiplying its kernels by fixed mask
    buffers."""

    def __init__(self, cin, c, k, first=False):
        super().__init__()
        self.v = nn.Conv2d(cin, 2 * c, (k // 2 + 1, k), padding=k // 2)
        self.h = nn.Conv2d(cin, 2 * c, (1, k // 2 + 1), padding=(0, k // 2))
        self.v2h, self.hout = nn.Conv2d(2 * c, 2 * c, 1), nn.Conv2d(c, c, 1)
        self.first = first
        if first:
            vm, hm = torch.ones_like(self.v.weight), torch.ones_like(self.h.weight)
            vm[:, :, -1], hm[:, :, :, -1] = 0, 0
            self.register_buffer("vmask", vm)
            self.register_buffer("hmask", hm)

    @staticmethod
    def _gate(x):
        a, b = x.chunk(2, dim=1)
        return torch.tanh(a) * torch.sigmoid(b)

    def forward(self, xv, xh):                              # b, cin, 32, 32 each
        hgt, wid = xv.shape[-2:]
        wv, wh = self.v.weight, self.h.weight
        if self.first:
            wv, wh = wv * self.vmask, wh * self.hmask
        v = F.conv2d(xv, wv, self.v.bias, padding=self.v.padding)[:, :, :hgt]    # b, 2c, 32, 32
        h = F.conv2d(xh, wh, self.h.bias, padding=self.h.padding)[..., :wid]     # b, 2c, 32, 32
        h = self.hout(self._gate(h + self.v2h(v)))
        return self._gate(v), (h if self.first else h + xh)   # b, c, 32, 32 each


class GatedPixelCNN(nn.Module):
    """A Gated PixelCNN on 32x32 RGB images of 256 levels (scaled to
    [-1, 1]): a first gated layer of kernel 7 (masked, type A), 15 gated
    layers of kernel 3 and 128 channels, a 1x1 Conv2d to 1,024, ReLU and a
    1x1 Conv2d to 256 logits for each of the 3 colour channels (the
    channels of a pixel predicted independently given the pixels before
    it; no class conditioning)."""

    def __init__(self, c=128, layers=15, head=1024):
        super().__init__()
        self.layers = nn.ModuleList([GatedPixelLayer(3, c, 7, first=True)]
                                    + [GatedPixelLayer(c, c, 3) for _ in range(layers)])
        self.head = nn.Sequential(nn.ReLU(), nn.Conv2d(c, head, 1), nn.ReLU(), nn.Conv2d(head, 3 * 256, 1))

    def forward(self, img):                                 # b, 3, 32, 32 (0 .. 255)
        x = img.float() / 127.5 - 1
        v, h = x, x
        for layer in self.layers:
            v, h = layer(v, h)
        b, _, hgt, wid = h.shape
        return self.head(h).view(b, 256, 3, hgt, wid)       # b, 256, 3, 32, 32


def pixelcnn(batch, device):
    def make():
        img = torch.randint(0, 256, (batch, 3, 32, 32), device=device)
        return img, img.clone()
    return GatedPixelCNN(), make, _cls_loss, "adam"


class NBeatsBlock(nn.Module):
    """An N-BEATS generic block as the authors' code builds it: 4 Linear of
    512 with ReLU, a Linear to theta of lookback + horizon (336 + 48)
    split into the backcast and the forecast (the generic basis)."""

    def __init__(self, lookback, horizon, units=512, layers=4):
        super().__init__()
        self.fcs = nn.ModuleList(nn.Linear(lookback if i == 0 else units, units) for i in range(layers))
        self.theta = nn.Linear(units, lookback + horizon)
        self.lookback = lookback

    def forward(self, x):                                   # b, 336
        for fc in self.fcs:
            x = F.relu(fc(x))
        theta = self.theta(x)                               # b, 384
        return theta[:, :self.lookback], theta[:, self.lookback:]   # b, 336; b, 48


class NBeats(nn.Module):
    """N-BEATS, generic architecture (Oreshkin et al. 2020): 30 stacks of
    one block (no sharing) over a 7 x 48 = 336-step lookback, horizon 48;
    the input flipped in time, each block's backcast subtracted from the
    residual it passes on, the forecasts summed onto the last observed
    value."""

    def __init__(self, horizon=48, mult=7, blocks=30):
        super().__init__()
        self.blocks = nn.ModuleList(NBeatsBlock(mult * horizon, horizon) for _ in range(blocks))

    def forward(self, x):                                   # b, 336
        res, forecast = x.flip(1), x[:, -1:]
        for block in self.blocks:
            back, f = block(res)
            res = res - back
            forecast = forecast + f
        return forecast                                     # b, 48


def _smape_loss(out, y):
    """sMAPE as the authors' smape_2_loss: 200 x the mean of |f - y| /
    (|f| + |y|), the denominator without gradient."""
    return 200 * ((out - y).abs() / (out.detach().abs() + y.abs())).mean()


def nbeats(batch, device):
    """batch: windows of a positive series (sMAPE's denominators above 0)."""
    def make():
        return (torch.rand(batch, 336, device=device) + 1,
                torch.rand(batch, 48, device=device) + 1)
    return NBeats(), make, _smape_loss, "adam"


# -- eighteenth round ----------------------------------------------------------
# Models recorded after the seventeenth round: a Deep Interest Evolution
# Network (gathers from a 500,000 x 32 dense item table, an nn.GRU interest
# extractor over 40 behaviours, an attention MLP with a masked softmax over
# the steps, then the AUGRU interest evolution unrolled in a Python loop:
# two small GEMMs and a handful of element-wise ops on b x 64 per step), an
# ALBERT-base-shaped encoder (a factorised 128-wide embedding projected to
# 768, one post-LN layer whose weights are applied 6 times, so that the
# weight gradients accumulate over the repeats; the masked-LM head tied to
# the 30,000 x 128 embedding on the gathered masked positions), a
# MeshGraphNets-shaped simulator (edge features from gathered positions,
# 8 processor steps of an edge MLP over [sender, receiver, edge], index_add_
# to the receivers and a node MLP; tens of thousands of edges per mesh), a
# MobileViT-XS classifier at 256x256 (MobileNetV2 inverted residuals, then
# blocks that unfold the feature map into 2x2 patches by reshape and permute
# and run pre-LN transformer layers over the patches of each pixel offset)
# and a WGAN-GP with DCGAN-shaped networks at 64x64 (the gradient penalty
# by torch.autograd.grad with create_graph=True: the backward runs a double
# backward of the critic's convolutions and leaky ReLUs).

class Fp32LayerNorm(nn.LayerNorm):
    """LayerNorm of the input cast to fp32, its output left in fp32: what
    CUDA autocast does anyway, written out so that CPU autocast in 1.13
    (which would hand it bf16 input with fp32 weights) runs it too."""

    def forward(self, x):
        return F.layer_norm(x.float(), self.normalized_shape, self.weight, self.bias, self.eps)


class AUGRU(nn.Module):
    """DIEN's interest evolution layer: a GRU whose update gate is scaled by
    the step's attention score (AUGRU, the reference's VecAttGRUCell):
    the reset and update gates from one Linear of [x_t, h], the candidate
    from a Linear of [x_t, r h] and tanh, u' = a_t u, h = (1 - u') h + u' c;
    unrolled in a Python loop over the steps. A step scored 0 (the
    padding) leaves h as it was, so the last h is the state at the
    history's end."""

    def __init__(self, d, hidden):
        super().__init__()
        self.gates, self.cand = nn.Linear(d + hidden, 2 * hidden), nn.Linear(d + hidden, hidden)
        self.hidden = hidden

    def forward(self, x, att):                              # b, t, d; b, t
        h = x.new_zeros(x.shape[0], self.hidden)
        for t in range(x.shape[1]):
            xt = x[:, t]
            r, u = torch.sigmoid(self.gates(torch.cat([xt, h], dim=1))).chunk(2, dim=1)
            c = torch.tanh(self.cand(torch.cat([xt, r * h], dim=1)))
            u = att[:, t:t + 1] * u
            h = (1 - u) * h + u * c
        return h                                            # b, hidden


class DIEN(nn.Module):
    """A Deep Interest Evolution Network (Zhou et al. 2019): items (500,000
    x 32) and categories (5,000 x 32) in dense nn.Embedding tables, a
    behaviour and the candidate each 64 wide (item and category
    concatenated); the interest extractor an nn.GRU of 64 over the 40
    behaviours (not packed: the padded steps are masked out of the
    attention; the auxiliary loss on the next behaviours is left out);
    attention as the reference's din_fcn_attention: the candidate through
    a Linear and PReLU, an MLP of [q, h, q - h, q h] (256) -> 80 -> 40 -> 1
    with sigmoid, a softmax over the steps with the padding masked; the
    AUGRU of 64 over the extractor's states; then BatchNorm1d of
    [candidate, sum of the behaviours, candidate x sum, final interest]
    (256) and an MLP 200 -> 80 -> 2 with PReLU."""

    def __init__(self, items=500000, cats=5000, d=32):
        super().__init__()
        self.item, self.cat = nn.Embedding(items, d), nn.Embedding(cats, d)
        e = 2 * d
        self.gru = nn.GRU(e, e, batch_first=True)
        self.query = nn.Sequential(nn.Linear(e, e), nn.PReLU(e))
        self.att = nn.Sequential(nn.Linear(4 * e, 80), nn.Sigmoid(), nn.Linear(80, 40), nn.Sigmoid(),
                                 nn.Linear(40, 1))
        self.augru = AUGRU(e, e)
        self.bn = nn.BatchNorm1d(4 * e)
        self.mlp = nn.Sequential(nn.Linear(4 * e, 200), nn.PReLU(200), nn.Linear(200, 80), nn.PReLU(80),
                                 nn.Linear(80, 2))

    def forward(self, inp):
        hist_i, hist_c, cand_i, cand_c, lens = inp          # b, 40; b, 40; b; b; b
        beh = torch.cat([self.item(hist_i), self.cat(hist_c)], dim=-1)    # b, 40, 64
        cand = torch.cat([self.item(cand_i), self.cat(cand_c)], dim=-1)   # b, 64
        h, _ = self.gru(beh)                                # b, 40, 64
        q = self.query(cand).unsqueeze(1).expand_as(h).to(h.dtype)
        s = self.att(torch.cat([q, h, q - h, q * h], dim=-1)).squeeze(-1)   # b, 40
        pad = torch.arange(h.shape[1], device=lens.device).unsqueeze(0) >= lens.unsqueeze(1)
        a = s.masked_fill(pad, float("-inf")).softmax(-1)   # b, 40
        final = self.augru(h, a)                            # b, 64
        pooled = beh.sum(1)                                 # over all 40 steps, as the reference's reduce_sum
        x = torch.cat([cand, pooled, cand * pooled, final.to(cand.dtype)], dim=1)   # b, 256
        return self.mlp(self.bn(x))                         # b, 2


def dien(batch, device):
    """batch: impressions, each a history of 1 to 40 behaviours."""
    return DIEN(), lambda: _behaviour_batch(batch, device, 40, 500000, 5000), _cls_loss, "adam"


class ALBERTLayer(nn.Module):
    """ALBERT's transformer layer (post-LN, as BERT): query, key and value
    Linear, 12 heads by _attention (SDPA, or the softmax written out under
    1.13), the output Linear and LayerNorm of the residual; a feed-forward
    768 -> 3,072 -> 768 with the tanh GELU (gelu_new), LayerNorm of the
    residual. No dropout, as albert-base-v2."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = Fp32LayerNorm(d, eps=1e-12), Fp32LayerNorm(d, eps=1e-12)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.heads = heads

    def forward(self, x):                                   # b, t, d
        b, t, d = x.shape
        q, k, v = (m(x).view(b, t, self.heads, -1).transpose(1, 2) for m in (self.q, self.k, self.v))
        a = _attention(q, k, v).transpose(1, 2).reshape(b, t, d)   # b, t, 768
        x = self.ln1(x + self.o(a))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x), approximate="tanh")))


class ALBERT(nn.Module):
    """An ALBERT-base-shaped masked LM (Lan et al. 2020): word (30,000),
    position (512) and segment (2) embeddings of 128 summed, LayerNorm, a
    Linear 128 -> 768; one ALBERTLayer (12 heads, 3,072) shared across
    layers and applied 6 times (ALBERT-base applies it 12); the hidden
    states at the masked positions gathered, a Linear 768 -> 128, GELU,
    LayerNorm, and logits by the word embedding's 30,000 x 128 matrix (tied)
    plus a bias. The sentence-order head is left out."""

    def __init__(self, vocab=30000, e=128, d=768, heads=12, ffn=3072, repeats=6, positions=512):
        super().__init__()
        self.word, self.pos, self.seg = nn.Embedding(vocab, e), nn.Embedding(positions, e), nn.Embedding(2, e)
        self.emb_ln = Fp32LayerNorm(e, eps=1e-12)
        self.proj = nn.Linear(e, d)
        self.layer = ALBERTLayer(d, heads, ffn)
        self.repeats = repeats
        self.mlm, self.mlm_ln = nn.Linear(d, e), Fp32LayerNorm(e, eps=1e-12)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab))
        # the reference's initializer_range 0.02: with N(0, 1) embeddings the
        # tied logits would start at a loss of about 40
        normal_linears_embeddings(self)

    def forward(self, inp):
        ids, seg, masked = inp                              # b, 128; b, 128; b, 19
        x = self.word(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device)) + self.seg(seg)
        x = self.proj(self.emb_ln(x))                       # b, 128, 768
        for _ in range(self.repeats):
            x = self.layer(x)
        x = x.gather(1, masked.unsqueeze(-1).expand(-1, -1, x.shape[-1]))   # b, 19, 768
        h = self.mlm_ln(F.gelu(self.mlm(x), approximate="tanh"))            # b, 19, 128
        return F.linear(h, self.word.weight, self.mlm_bias)                 # b, 19, 30000


def albert(batch, device):
    """batch: sequences of 128 tokens, two segments, 15% of the positions
    (19) masked; the loss on those alone."""
    seq, n_mask = 128, round(0.15 * 128)

    def make():
        ids = torch.randint(0, 30000, (batch, seq), device=device)
        cut = torch.randint(16, seq - 16, (batch, 1), device=device)
        seg = (torch.arange(seq, device=device).unsqueeze(0) >= cut).long()
        masked = torch.rand(batch, seq, device=device).argsort(1)[:, :n_mask]   # distinct positions
        return (ids, seg, masked), ids.gather(1, masked)
    return ALBERT(), make, _lm_loss, "adamw"


def _mgn_mlp(cin, cout, d=128, hidden=2, norm=True):
    """MeshGraphNets' make_mlp: `hidden` Linear of d with ReLU, a Linear to
    cout, LayerNorm (all but the decoder's)."""
    layers = []
    for _ in range(hidden):
        layers += [nn.Linear(cin, d), nn.ReLU()]
        cin = d
    layers.append(nn.Linear(cin, cout))
    if norm:
        layers.append(Fp32LayerNorm(cout))
    return nn.Sequential(*layers)


class MGNBlock(nn.Module):
    """A MeshGraphNets processor step (GraphNetBlock): every edge's latent
    updated by an MLP of [sender, receiver, edge] (384, the nodes gathered
    by index_select), the new edge latents summed into their receivers by
    index_add_, every node's latent updated by an MLP of [node, sum] (256);
    both updates residual."""

    def __init__(self, d=128):
        super().__init__()
        self.edge, self.node = _mgn_mlp(3 * d, d, d), _mgn_mlp(2 * d, d, d)

    def forward(self, h, e, send, recv):                    # n, d; E, d; E; E
        e2 = self.edge(torch.cat([h.index_select(0, send), h.index_select(0, recv), e], dim=1))   # E, d
        agg = e2.new_zeros(h.shape[0], e2.shape[1]).index_add_(0, recv, e2)                      # n, d
        return h + self.node(torch.cat([h, agg.to(h.dtype)], dim=1)), e + e2


class MeshGraphNet(nn.Module):
    """A MeshGraphNets-shaped cloth simulator (Pfaff et al. 2021, the flag
    model): node features the velocity (3) and a one-hot node type (9),
    edge features computed from gathered positions (relative world
    position, 3, and its norm; relative mesh position, 2, and its norm);
    encoders to 128 (make_mlp: 2 hidden layers of 128, LayerNorm), 8
    MGNBlock steps (no shared weights), a decoder MLP to 3 (the
    acceleration). The online feature normalisers are left out."""

    def __init__(self, node_in=12, edge_in=7, d=128, steps=8, out=3):
        super().__init__()
        self.node_enc, self.edge_enc = _mgn_mlp(node_in, d, d), _mgn_mlp(edge_in, d, d)
        self.blocks = nn.ModuleList(MGNBlock(d) for _ in range(steps))
        self.dec = _mgn_mlp(d, out, d, norm=False)

    def forward(self, inp):
        vel, ntype, mesh, world, send, recv = inp           # n, 3; n; n, 2; n, 3; E; E
        rw = world.index_select(0, send) - world.index_select(0, recv)   # E, 3
        rm = mesh.index_select(0, send) - mesh.index_select(0, recv)     # E, 2
        e = torch.cat([rw, rw.norm(dim=1, keepdim=True), rm, rm.norm(dim=1, keepdim=True)], dim=1)   # E, 7
        h = self.node_enc(torch.cat([vel, F.one_hot(ntype, 9).to(vel.dtype)], dim=1))             # n, 128
        e = self.edge_enc(e)                                # E, 128
        for blk in self.blocks:
            h, e = blk(h, e, send, recv)
        return self.dec(h)                                  # n, 3


def meshgraphnet(batch, device):
    """batch: meshes of 2,000 nodes, a 40 x 50 grid of jittered points
    split into triangles by one diagonal per cell: 5,821 mesh edges, each
    both ways (11,642 directed edges); the meshes of a batch are disjoint
    graphs in one node list."""
    rows, cols = 40, 50

    def make():
        idx = torch.arange(rows * cols).view(rows, cols)
        pairs = [(idx[:, :-1], idx[:, 1:]), (idx[:-1], idx[1:]), (idx[:-1, :-1], idx[1:, 1:])]
        a = torch.cat([p.flatten() for p, _ in pairs])
        b = torch.cat([q.flatten() for _, q in pairs])
        send1, recv1 = torch.cat([a, b]), torch.cat([b, a])                   # 11,642 each
        off = (torch.arange(batch) * rows * cols).view(-1, 1)
        send = (send1.view(1, -1) + off).flatten().to(device)
        recv = (recv1.view(1, -1) + off).flatten().to(device)
        n = batch * rows * cols
        gy, gx = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
        mesh = torch.stack([gx, gy], dim=-1).reshape(-1, 2).float().repeat(batch, 1).to(device) / cols
        mesh = mesh + 0.005 * torch.randn(n, 2, device=device)
        world = torch.cat([mesh, 0.1 * torch.randn(n, 1, device=device)], dim=1)
        return ((0.01 * torch.randn(n, 3, device=device), torch.randint(0, 9, (n,), device=device),
                 mesh, world, send, recv),
                torch.randn(n, 3, device=device))
    return MeshGraphNet(), make, _mse_loss, "adam"


class MV2Block(nn.Module):
    """MobileNetV2's inverted residual as MobileViT uses it: a 1x1
    expansion (x4), a 3x3 depthwise convolution (stride s), a 1x1
    projection; BatchNorm after each, SiLU after the first two; the
    residual where the shape is kept."""

    def __init__(self, cin, cout, stride=1, expand=4):
        super().__init__()
        c = cin * expand
        self.body = nn.Sequential(nn.Conv2d(cin, c, 1, bias=False), nn.BatchNorm2d(c), nn.SiLU(),
                                  nn.Conv2d(c, c, 3, stride, 1, groups=c, bias=False), nn.BatchNorm2d(c),
                                  nn.SiLU(), nn.Conv2d(c, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.res = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.res else self.body(x)


class MViTLayer(nn.Module):
    """A MobileViT transformer layer (pre-LN, as cvnets): LayerNorm, 4-head
    self-attention written out (a QKV Linear, matmul, softmax, matmul), the
    output Linear, dropout 0.1, its residual; LayerNorm, a feed-forward of
    2 d with SiLU, dropout 0.1, its residual."""

    def __init__(self, d, heads=4, drop=0.1):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.heads, self.drop = heads, drop

    def forward(self, x):                                   # b 4, n, d
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)   # b 4, 4, n, hd
        w = torch.softmax((q @ k.transpose(2, 3)).float() * hd ** -0.5, dim=-1)               # b 4, 4, n, n
        a = self.proj((w.to(v.dtype) @ v).transpose(1, 2).reshape(b, t, d))
        x = x + F.dropout(a, self.drop, self.training)
        h = self.fc2(F.silu(self.fc1(self.ln2(x))))
        return x + F.dropout(h, self.drop, self.training)


def _cbs(cin, cout, k, stride=1):
    """A k x k Conv2d without bias, BatchNorm2d, SiLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout), nn.SiLU())


class MobileViTBlock(nn.Module):
    """MobileViT's block (v1): a 3x3 conv-BN-SiLU and a 1x1 Conv2d to d (no
    norm); the map unfolded into 2x2 patches by reshape and permute (b, d,
    h, w to b x 4, h w / 4, d: one sequence per pixel offset within the
    patch), L MViTLayer and a LayerNorm, folded back; a 1x1 conv-BN-SiLU to
    c, concatenated with the block's input, a 3x3 conv-BN-SiLU to c."""

    def __init__(self, c, d, layers, patch=2):
        super().__init__()
        self.local = nn.Sequential(_cbs(c, c, 3), nn.Conv2d(c, d, 1, bias=False))
        self.layers = nn.Sequential(*[MViTLayer(d) for _ in range(layers)], Fp32LayerNorm(d))
        self.proj, self.fuse = _cbs(d, c, 1), _cbs(2 * c, c, 3)
        self.p = patch

    def forward(self, x):                                   # b, c, h, w
        y = self.local(x)                                   # b, d, h, w
        b, d, h, w = y.shape
        p, nh, nw = self.p, h // self.p, w // self.p
        y = y.reshape(b, d, nh, p, nw, p).permute(0, 3, 5, 2, 4, 1).reshape(b * p * p, nh * nw, d)
        y = self.layers(y)                                  # b 4, h w / 4, d
        y = y.reshape(b, p, p, nh, nw, d).permute(0, 5, 3, 1, 4, 2).reshape(b, d, h, w)
        return self.fuse(torch.cat([x, self.proj(y).to(x.dtype)], dim=1))   # b, c, h, w


class MobileViT(nn.Module):
    """MobileViT-XS (Mehta and Rastegari 2022) at 256x256: a 3x3 stride-2
    stem to 16; MV2Block 16 -> 32; 3 MV2Block to 48 (the first at stride
    2, 64x64); then three stages of a stride-2 MV2Block and a
    MobileViTBlock: 64 channels, d 96, 2 layers at 32x32; 80, d 120, 4
    layers at 16x16; 96, d 144, 3 layers at 8x8; a 1x1 conv-BN-SiLU to
    384, global mean, dropout 0.1, a Linear to 1,000 classes."""

    def __init__(self, classes=1000):
        super().__init__()
        layers = [_cbs(3, 16, 3, 2), MV2Block(16, 32), MV2Block(32, 48, 2), MV2Block(48, 48), MV2Block(48, 48)]
        cin = 48
        for c, d, n in ((64, 96, 2), (80, 120, 4), (96, 144, 3)):
            layers += [MV2Block(cin, c, 2), MobileViTBlock(c, d, n)]
            cin = c
        layers.append(_cbs(cin, 4 * cin, 1))
        self.features = nn.Sequential(*layers)
        self.drop, self.fc = nn.Dropout(0.1), nn.Linear(4 * cin, classes)

    def forward(self, x):                                   # b, 3, 256, 256
        return self.fc(self.drop(self.features(x).mean((2, 3))))   # b, 1000


def _smooth_cls_loss(out, y):
    """Cross-entropy with label smoothing 0.1."""
    return F.cross_entropy(out, y, label_smoothing=0.1)


def mobilevit(batch, device):
    return MobileViT(), _images(batch, device, 256), _smooth_cls_loss, "sgd_momentum"


class DCGANGenerator(nn.Module):
    """DCGAN's generator at 64x64 (ngf 64) from a 128-d latent: a 4x4
    ConvTranspose2d to 512 x 4x4, then 4x4 stride-2 ConvTranspose2d to 256,
    128, 64 and 3 channels (8x8 .. 64x64); BatchNorm2d and ReLU after all
    but the last, tanh."""

    def __init__(self, z=128, ngf=64):
        super().__init__()
        chans = [8 * ngf, 4 * ngf, 2 * ngf, ngf]
        layers = [nn.ConvTranspose2d(z, chans[0], 4, 1, 0, bias=False), nn.BatchNorm2d(chans[0]), nn.ReLU(True)]
        for a, b in zip(chans, chans[1:]):
            layers += [nn.ConvTranspose2d(a, b, 4, 2, 1, bias=False), nn.BatchNorm2d(b), nn.ReLU(True)]
        layers += [nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, z):                                   # b, 128
        return self.net(z[:, :, None, None])                # b, 3, 64, 64


class DCGANCritic(nn.Module):
    """WGAN-GP's DCGAN-shaped critic at 64x64 (ndf 64): 4x4 stride-2 Conv2d
    3 -> 64 -> 128 -> 256 -> 512 (to 4x4) with leaky ReLU 0.2 (not in
    place: the penalty's double backward goes through it) and no
    normalisation (a batch norm would couple the samples' gradients that
    the penalty constrains one by one), a 4x4 Conv2d to one score."""

    def __init__(self, ndf=64):
        super().__init__()
        chans = [3, ndf, 2 * ndf, 4 * ndf, 8 * ndf]
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 4, 2, 1) for a, b in zip(chans, chans[1:]))
        self.out = nn.Conv2d(8 * ndf, 1, 4)

    def forward(self, x, frozen=False):                     # b, 3, 64, 64
        for conv in self.convs:
            x = F.leaky_relu(_fwd(conv, x, frozen), 0.2)
        return _fwd(self.out, x, frozen).flatten(1)         # b, 1


class WGANGP(nn.Module):
    """WGAN-GP (Gulrajani et al. 2017) with DCGAN-shaped networks at 64x64:
    a critic update and a generator update (n_critic 1) in one backward.
    The critic's loss is D(fake) - D(real) on the detached fakes plus the
    gradient penalty (|grad_x D(x)| - 1)^2 at x = eps real + (1 - eps)
    fake, eps uniform per sample; the gradient is taken by
    torch.autograd.grad with create_graph=True, so that the step's backward
    differentiates through it (a double backward of the critic). The
    generator's loss is -D(G(z)) through the frozen critic (detached
    weights). The terms touch disjoint parameters, so one backward gives
    each network the gradient of its own loss (the generator's from the
    same fakes, not from a fresh sample after the critic's step). Returns
    the generator's, the critic's and the penalty's terms per sample
    (b, 3)."""

    def __init__(self):
        super().__init__()
        self.g, self.d = DCGANGenerator(), DCGANCritic()

    def forward(self, inp):
        z, real = inp                                       # b, 128; b, 3, 64, 64 in [-1, 1]
        fake = self.g(z)
        g = -self.d(fake, frozen=True).float()
        fake = fake.detach()
        d = self.d(fake).float() - self.d(real).float()
        eps = torch.rand(real.shape[0], 1, 1, 1, device=real.device)
        x = (eps * real + (1 - eps) * fake).requires_grad_(True)
        grad, = torch.autograd.grad(self.d(x).sum(), x, create_graph=True)   # b, 3, 64, 64
        gp = (grad.float().flatten(1).norm(dim=1, keepdim=True) - 1) ** 2
        return torch.cat([g, d, gp], dim=1)                 # b, 3


def _wgangp_loss(out, y):
    """The generator's and the critic's Wasserstein terms plus 10 x the
    gradient penalty (computed by the model; y is unused)."""
    return out[:, 0].mean() + out[:, 1].mean() + 10.0 * out[:, 2].mean()


def wgangp(batch, device):
    def make():
        return ((torch.randn(batch, 128, device=device),
                 torch.rand(batch, 3, 64, 64, device=device) * 2 - 1), None)
    return WGANGP(), make, _wgangp_loss, "adam"


# -- nineteenth round ----------------------------------------------------------
# Models recorded after the eighteenth round: a DETR-shaped detector at
# 512x512 (a ResNet-18-shaped backbone with BatchNorm to 1/32, a 1x1
# projection to 256, the sine positional encoding made each step from a
# padding mask by cumsum, sin and cos, a post-LN transformer of 3 + 3 layers
# through nn.MultiheadAttention, sequence-first, over 100 learned object
# queries), a Tacotron-2-shaped text-to-mel model (Conv1d and BatchNorm1d,
# a BiLSTM encoder, then a decoder unrolled in a Python loop over 120 mel
# frames: two LSTMCell of 1,024, a location-sensitive attention with its
# Conv1d over the cumulative weights and a softmax over 100 steps, and two
# small projections per frame; a Conv1d postnet), a Behavior Sequence
# Transformer (gathers from a 1,000,000 x 32 dense item table, one
# transformer block over 21 steps of 64, a wide LeakyReLU MLP; thousands of
# rows per batch), an AFNO/FourCastNet-shaped weather model (rfft2 and
# irfft2 over a 16x32 patch grid in fp32, a block-diagonal complex MLP
# written as real einsums over 8 blocks per mode, soft-shrink) and a CapsNet
# (a [1152, 10, 16, 8] weight tensor applied by a broadcast matmul, then
# dynamic routing by agreement in a Python loop: softmax, weighted sums,
# squashes and agreements over b x 1152 x 10 x 16).

def _sine_pos(mask, d=256, temperature=10000):
    """DETR's PositionEmbeddingSine (normalize=True) of a b, h, w padding
    mask: the cumulative counts of the unpadded rows and columns scaled to
    (0, 2 pi], divided by temperature^(2 (i // 2) / (d / 2)), sines of the
    even features and cosines of the odd; y's d / 2 then x's (b, d, h, w)."""
    keep = ~mask
    y = keep.cumsum(1, dtype=torch.float32)
    x = keep.cumsum(2, dtype=torch.float32)
    y = y / (y[:, -1:, :] + 1e-6) * 2 * math.pi
    x = x / (x[:, :, -1:] + 1e-6) * 2 * math.pi
    n = d // 2
    dim_t = torch.arange(n, dtype=torch.float32, device=mask.device)
    dim_t = temperature ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / n)
    px, py = x[..., None] / dim_t, y[..., None] / dim_t     # b, h, w, d / 2 each
    px = torch.stack((px[..., 0::2].sin(), px[..., 1::2].cos()), dim=4).flatten(3)
    py = torch.stack((py[..., 0::2].sin(), py[..., 1::2].cos()), dim=4).flatten(3)
    return torch.cat((py, px), dim=3).permute(0, 3, 1, 2)   # b, d, h, w


class DETREncoderLayer(nn.Module):
    """DETR's TransformerEncoderLayer (post-LN), sequence-first as DETR:
    self-attention through nn.MultiheadAttention (8 heads, dropout 0.1)
    with the positional encoding added to the queries and keys but not the
    values, dropout, the residual, LayerNorm; a ReLU feed-forward 256 ->
    1,024 -> 256 with dropout, the residual, LayerNorm."""

    def __init__(self, d=256, heads=8, ffn=1024, drop=0.1):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, dropout=drop)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.drop = drop

    def forward(self, x, pos):                              # hw, b, d; hw, b, d
        q = x + pos
        a = self.attn(q, q, x, need_weights=False)[0]
        x = self.ln1(x + F.dropout(a, self.drop, self.training))
        h = self.fc2(F.dropout(F.relu(self.fc1(x)), self.drop, self.training))
        return self.ln2(x + F.dropout(h, self.drop, self.training))


class DETRDecoderLayer(nn.Module):
    """DETR's TransformerDecoderLayer (post-LN): self-attention of the
    queries (the query embedding added to queries and keys), the residual,
    LayerNorm; cross-attention to the encoder's memory (query embedding on
    the queries, positional encoding on the keys), the residual,
    LayerNorm; the ReLU feed-forward, the residual, LayerNorm; dropout 0.1
    throughout."""

    def __init__(self, d=256, heads=8, ffn=1024, drop=0.1):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, heads, dropout=drop)
        self.cross_attn = nn.MultiheadAttention(d, heads, dropout=drop)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.ln1, self.ln2, self.ln3 = Fp32LayerNorm(d), Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.drop = drop

    def forward(self, t, mem, pos, qpos):                   # 100, b, d; hw, b, d; hw, b, d; 100, b, d
        q = t + qpos
        a = self.self_attn(q, q, t, need_weights=False)[0]
        t = self.ln1(t + F.dropout(a, self.drop, self.training))
        a = self.cross_attn(t + qpos, mem + pos, mem, need_weights=False)[0]
        t = self.ln2(t + F.dropout(a, self.drop, self.training))
        h = self.fc2(F.dropout(F.relu(self.fc1(t)), self.drop, self.training))
        return self.ln3(t + F.dropout(h, self.drop, self.training))


class DETR(nn.Module):
    """A DETR-shaped detector (Carion et al. 2020) at 512x512: a
    ResNet-18-shaped backbone (a 7x7 stride-2 stem and max-pool to 1/4,
    two basic blocks each of 64, 128, 256 and 512 channels, the last three
    stages strided: 16x16 at 1/32; BatchNorm2d trained, where DETR freezes
    it), a 1x1 Conv2d to 256, the sine positional encoding of an all-valid
    padding mask (one image size per batch), 3 DETREncoderLayer over the
    256 positions, 3 DETRDecoderLayer over 100 object queries (zeros, with
    a learned 100 x 256 query embedding), a final LayerNorm, then a Linear
    to 92 classes (91 and no-object) and a box MLP 256 -> 256 -> 256 -> 4
    with ReLU and sigmoid (cx, cy, w, h). The auxiliary heads on the
    intermediate decoder layers are left out. Returns the logits and the
    boxes concatenated (b, 100, 96)."""

    def __init__(self, classes=91, queries=100, d=256, heads=8, ffn=1024, enc=3, dec=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))   # b, 64, 128, 128
        chans = (64, 64, 128, 256, 512)
        self.backbone = nn.Sequential(*[nn.Sequential(DilatedBasic(a, c, 1 if i == 0 else 2), DilatedBasic(c, c))
                                        for i, (a, c) in enumerate(zip(chans, chans[1:]))])
        self.proj = nn.Conv2d(chans[-1], d, 1)
        self.enc = nn.ModuleList(DETREncoderLayer(d, heads, ffn) for _ in range(enc))
        self.dec = nn.ModuleList(DETRDecoderLayer(d, heads, ffn) for _ in range(dec))
        self.dec_ln = Fp32LayerNorm(d)
        self.query = nn.Embedding(queries, d)
        self.cls = nn.Linear(d, classes + 1)
        self.box = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 4))

    def forward(self, x):                                   # b, 3, 512, 512
        f = self.proj(self.backbone(self.stem(x)))          # b, 256, 16, 16
        b, d, h, w = f.shape
        mask = torch.zeros(b, h, w, dtype=torch.bool, device=x.device)
        pos = _sine_pos(mask, d).flatten(2).permute(2, 0, 1)   # 256, b, 256
        mem = f.flatten(2).permute(2, 0, 1)                 # 256, b, 256
        for layer in self.enc:
            mem = layer(mem, pos)
        qpos = self.query.weight.unsqueeze(1).repeat(1, b, 1)   # 100, b, 256
        t = torch.zeros_like(qpos)
        for layer in self.dec:
            t = layer(t, mem, pos, qpos)
        t = self.dec_ln(t).transpose(0, 1)                  # b, 100, 256
        return torch.cat([self.cls(t), self.box(t).sigmoid()], dim=-1)   # b, 100, 92 + 4


def _detr_loss(out, y):
    """DETR's classification and box terms on a fixed assignment of the
    targets to the queries, in place of the Hungarian matching (whose cost
    matrix and linear_sum_assignment run on the host, outside the kernels
    measured here): the cross-entropy of all 100 queries' 92-way logits,
    the no-object class weighted 0.1 (eos_coef), plus 5 x the L1 distance
    of the first 20 queries' boxes to theirs, summed over the coordinates
    and divided by the number of boxes. The GIoU term is left out."""
    labels, boxes = y                                       # b, 100; b, 20, 4
    k = out.shape[-1] - 4
    weight = torch.ones(k, device=out.device)
    weight[-1] = 0.1
    ce = F.cross_entropy(out[..., :k].reshape(-1, k), labels.reshape(-1), weight)
    l1 = F.l1_loss(out[:, :boxes.shape[1], k:], boxes, reduction="sum") / (boxes.shape[0] * boxes.shape[1])
    return ce + 5.0 * l1


def detr(batch, device):
    """batch: 512x512 images with 20 objects each, assigned to the first 20
    queries; the other 80 queries' class is no-object (91)."""
    def make():
        labels = torch.full((batch, 100), 91, dtype=torch.long, device=device)
        labels[:, :20] = torch.randint(0, 91, (batch, 20), device=device)
        wh = 0.05 + 0.4 * torch.rand(batch, 20, 2, device=device)
        cxy = wh / 2 + (1 - wh) * torch.rand(batch, 20, 2, device=device)
        return (torch.randn(batch, 3, 512, 512, device=device), (labels, torch.cat([cxy, wh], dim=2)))
    return DETR(), make, _detr_loss, "adamw"


class LocationAttention(nn.Module):
    """Tacotron 2's location-sensitive attention: the query (the attention
    LSTM's h, 1,024) through a Linear to 128; the previous and the
    cumulative attention weights (2 channels over the 100 encoder steps)
    through a Conv1d of 32 filters of 31 and a Linear to 128; added to the
    encoder outputs' projection (made once per utterance), tanh, a Linear
    to one energy per step, softmax over the steps; the context the
    weighted sum of the encoder outputs by bmm."""

    def __init__(self, q=1024, d=128, filters=32, k=31):
        super().__init__()
        self.query = nn.Linear(q, d, bias=False)
        self.loc_conv = nn.Conv1d(2, filters, k, padding=k // 2, bias=False)
        self.loc_dense = nn.Linear(filters, d, bias=False)
        self.v = nn.Linear(d, 1, bias=False)

    def forward(self, h, memory, keys, w_cat):              # b, 1024; b, 100, 512; b, 100, 128; b, 2, 100
        loc = self.loc_dense(self.loc_conv(w_cat).transpose(1, 2))              # b, 100, 128
        e = self.v(torch.tanh(self.query(h).unsqueeze(1) + loc + keys)).squeeze(2)   # b, 100
        w = e.float().softmax(1)                            # b, 100
        ctx = torch.bmm(w.unsqueeze(1).to(memory.dtype), memory).squeeze(1)     # b, 512
        return ctx, w


class Tacotron2(nn.Module):
    """A Tacotron-2-shaped text-to-mel model (Shen et al. 2018, laid out as
    NVIDIA's implementation): 148 symbols embedded to 512; 3 Conv1d of 512,
    kernel 5, with BatchNorm1d, ReLU and dropout 0.5; a BiLSTM of 256 per
    direction over the 100 symbols (not packed: one length per batch).
    The decoder unrolled in a Python loop over the 120 mel frames with
    teacher forcing: the prenet (Linear 80 -> 256 -> 256 without bias,
    ReLU, dropout 0.5 kept on in training and inference alike, as Tacotron
    2's) over the target frames shifted by one behind a zero go frame, run
    once for all frames; per frame the attention LSTMCell of 1,024 over
    [prenet, context] (dropout 0.1 on its h), the LocationAttention, the
    decoder LSTMCell of 1,024 over [attention h, context] (dropout 0.1),
    a Linear of [decoder h, context] to the 80 mel bins and one to the
    stop token. A postnet of 5 Conv1d (80 -> 512 x 4 -> 80, kernel 5)
    with BatchNorm1d, tanh on all but the last and dropout 0.5, added to
    the decoder's mels. Returns the mels, the postnet's mels and the stop
    logits concatenated (b, 120, 161)."""

    def __init__(self, symbols=148, e=512, mels=80, rnn=1024, prenet=256, att=128):
        super().__init__()
        self.emb = nn.Embedding(symbols, e)
        self.convs = nn.Sequential(*[nn.Sequential(nn.Conv1d(e, e, 5, padding=2), nn.BatchNorm1d(e), nn.ReLU(),
                                                   nn.Dropout(0.5)) for _ in range(3)])
        self.lstm = nn.LSTM(e, e // 2, batch_first=True, bidirectional=True)
        self.pre1, self.pre2 = nn.Linear(mels, prenet, bias=False), nn.Linear(prenet, prenet, bias=False)
        self.att_rnn = nn.LSTMCell(prenet + e, rnn)
        self.memory = nn.Linear(e, att, bias=False)
        self.att = LocationAttention(rnn, att)
        self.dec_rnn = nn.LSTMCell(rnn + e, rnn)
        self.mel, self.gate = nn.Linear(rnn + e, mels), nn.Linear(rnn + e, 1)
        post = [mels] + [512] * 4 + [mels]
        self.postnet = nn.ModuleList(nn.Sequential(nn.Conv1d(a, c, 5, padding=2), nn.BatchNorm1d(c))
                                     for a, c in zip(post, post[1:]))
        self.rnn = rnn

    def forward(self, inp):
        text, mels = inp                                    # b, 100; b, 80, 120
        b, n = text.shape
        x = self.convs(self.emb(text).transpose(1, 2))      # b, 512, 100
        memory, _ = self.lstm(x.transpose(1, 2))            # b, 100, 512
        keys = self.memory(memory)                          # b, 100, 128
        prev = torch.cat([mels.new_zeros(b, mels.shape[1], 1), mels[:, :, :-1]], dim=2)   # b, 80, 120
        pre = F.dropout(F.relu(self.pre1(prev.permute(2, 0, 1))), 0.5, True)
        pre = F.dropout(F.relu(self.pre2(pre)), 0.5, True)  # 120, b, 256
        # the states in the prenet's dtype, so that every step sees one type
        dt = pre.dtype
        ah, ac, dh, dc = (pre.new_zeros(b, self.rnn) for _ in range(4))
        w = w_cum = memory.new_zeros(b, n, dtype=torch.float32)
        ctx = pre.new_zeros(b, memory.shape[2])
        mel_out, gate_out = [], []
        for p in pre:                                       # b, 256
            ah, ac = (s.to(dt) for s in self.att_rnn(torch.cat([p, ctx], dim=1), (ah, ac)))
            ah = F.dropout(ah, 0.1, self.training)
            ctx, w = self.att(ah, memory, keys, torch.stack([w, w_cum], dim=1))
            ctx, w_cum = ctx.to(dt), w_cum + w
            dh, dc = (s.to(dt) for s in self.dec_rnn(torch.cat([ah, ctx], dim=1), (dh, dc)))
            dh = F.dropout(dh, 0.1, self.training)
            hc = torch.cat([dh, ctx], dim=1)                # b, 1536
            mel_out.append(self.mel(hc))
            gate_out.append(self.gate(hc))
        mel = torch.stack(mel_out, dim=2)                   # b, 80, 120
        y = mel
        for i, conv in enumerate(self.postnet):
            y = conv(y)
            y = F.dropout(torch.tanh(y) if i < len(self.postnet) - 1 else y, 0.5, self.training)
        post = mel + y.to(mel.dtype)                        # b, 80, 120
        gate = torch.stack(gate_out, dim=1)                 # b, 120, 1
        return torch.cat([mel.transpose(1, 2), post.transpose(1, 2), gate.to(mel.dtype)], dim=2)   # b, 120, 161


def _tacotron2_loss(out, y):
    """Tacotron 2's loss: the MSE of the mels before and after the postnet
    to the targets, plus the BCE of the stop logits."""
    mel, stop = y                                           # b, 120, 80; b, 120
    k = mel.shape[2]
    return (F.mse_loss(out[..., :k], mel) + F.mse_loss(out[..., k:2 * k], mel)
            + F.binary_cross_entropy_with_logits(out[..., 2 * k], stop))


def tacotron2(batch, device):
    """batch: utterances of 100 symbols and 120 mel frames (one length for
    the batch), the stop target 1 on the last frame."""
    def make():
        mels = torch.randn(batch, 80, 120, device=device)
        stop = torch.zeros(batch, 120, device=device)
        stop[:, -1] = 1
        return ((torch.randint(0, 148, (batch, 100), device=device), mels), (mels.transpose(1, 2), stop))
    return Tacotron2(), make, _tacotron2_loss, "adam"


class BST(nn.Module):
    """A Behavior Sequence Transformer (Chen et al. 2019): items (1,000,000
    x 32) and categories (10,000 x 32) in dense nn.Embedding tables, each
    of the 20 behaviours and the target item 64 wide (item and category
    concatenated) plus a learned position embedding (21 x 64, by index:
    in place of the paper's time-gap buckets); one post-LN transformer
    block: 8 heads of 8 written out (query, key and value Linear, matmul,
    softmax, matmul), the output Linear, dropout 0.2, LayerNorm of the
    residual; a feed-forward 64 -> 128 -> 64 with LeakyReLU, dropout 0.2,
    LayerNorm of the residual. Its 21 outputs flattened (1,344) and
    concatenated with 8 other features (user profile, context) embedded to
    16 from one 100,000-row table with per-feature offsets (128); an MLP
    1,472 -> 1,024 -> 512 -> 256 -> 1 with LeakyReLU: one logit."""

    def __init__(self, items=1000000, cats=10000, d=32, seq=21, heads=8, ffn=128,
                 other=8, other_rows=100000, other_d=16, drop=0.2):
        super().__init__()
        self.item, self.cat = nn.Embedding(items, d), nn.Embedding(cats, d)
        e = 2 * d
        self.pos = nn.Embedding(seq, e)
        self.q, self.k, self.v, self.o = (nn.Linear(e, e) for _ in range(4))
        self.ln1, self.ln2 = Fp32LayerNorm(e), Fp32LayerNorm(e)
        self.fc1, self.fc2 = nn.Linear(e, ffn), nn.Linear(ffn, e)
        self.other = nn.Embedding(other_rows, other_d)
        self.register_buffer("offsets", torch.arange(other) * (other_rows // other), persistent=False)   # 8
        dims = [seq * e + other * other_d, 1024, 512, 256]
        layers = []
        for a, c in zip(dims, dims[1:]):
            layers += [nn.Linear(a, c), nn.LeakyReLU()]
        self.mlp = nn.Sequential(*layers, nn.Linear(dims[-1], 1))
        self.heads, self.drop = heads, drop

    def forward(self, inp):
        items, cats, other = inp                            # b, 21; b, 21 (the target last); b, 8
        b, t = items.shape
        x = torch.cat([self.item(items), self.cat(cats)], dim=-1) + self.pos(torch.arange(t, device=items.device))
        hd = x.shape[-1] // self.heads                      # x: b, 21, 64
        q, k, v = (m(x).view(b, t, self.heads, hd).transpose(1, 2) for m in (self.q, self.k, self.v))   # b, 8, 21, 8
        w = torch.softmax((q @ k.transpose(2, 3)).float() * hd ** -0.5, dim=-1)   # b, 8, 21, 21
        a = self.o((w.to(v.dtype) @ v).transpose(1, 2).reshape(b, t, -1))
        x = self.ln1(x + F.dropout(a, self.drop, self.training))
        h = self.fc2(F.leaky_relu(self.fc1(x)))
        x = self.ln2(x + F.dropout(h, self.drop, self.training))   # b, 21, 64
        o = self.other(other + self.offsets).flatten(1)     # b, 128
        return self.mlp(torch.cat([x.flatten(1), o], dim=1)).squeeze(1)   # b, from 1,472


def bst(batch, device):
    """batch: impressions, each a history of 20 behaviours (item and
    category ids) and the target item, and 8 other categorical features
    of 12,500 values each."""
    def make():
        return ((torch.randint(0, 1000000, (batch, 21), device=device),
                 torch.randint(0, 10000, (batch, 21), device=device),
                 torch.randint(0, 12500, (batch, 8), device=device)),
                torch.randint(0, 2, (batch,), device=device).float())
    return BST(), make, _bce_loss, "adam"


def _block_mm(x, w):
    """x (..., blocks, i) times a block-diagonal w (blocks, i, o) by einsum."""
    return torch.einsum("...bi,bio->...bo", x, w)


class AFNOFilter(nn.Module):
    """FourCastNet's AFNO2D token mixer (hard-thresholding fraction 1: every
    mode kept): the b, h, w, d tokens cast to fp32 (complex bf16 does not
    exist; FourCastNet casts the same way) and transformed by rfft2 over
    the grid (ortho), the 384 channels split into 8 blocks of 48; per mode
    a block-diagonal complex MLP (48 -> 48, ReLU, 48 -> 48, with complex
    biases) written as real einsums of the real and imaginary parts,
    soft-shrink (0.01) of both, back to complex in fp32, irfft2, cast to
    the input's dtype, plus the input."""

    def __init__(self, d=384, blocks=8, lam=0.01, scale=0.02):
        super().__init__()
        bs = d // blocks
        self.w1 = nn.Parameter(scale * torch.randn(2, blocks, bs, bs))
        self.b1 = nn.Parameter(scale * torch.randn(2, blocks, bs))
        self.w2 = nn.Parameter(scale * torch.randn(2, blocks, bs, bs))
        self.b2 = nn.Parameter(scale * torch.randn(2, blocks, bs))
        self.blocks, self.lam = blocks, lam

    def forward(self, x):                                   # b, h, w, d
        b, h, w, d = x.shape
        xf = torch.fft.rfft2(x.float(), dim=(1, 2), norm="ortho").reshape(b, h, w // 2 + 1, self.blocks, -1)
        re, im = xf.real, xf.imag                           # b, h, w / 2 + 1, 8, 48 each
        mm, w1, w2, b1, b2 = _block_mm, self.w1, self.w2, self.b1, self.b2
        r1 = F.relu(mm(re, w1[0]) - mm(im, w1[1]) + b1[0])
        i1 = F.relu(mm(im, w1[0]) + mm(re, w1[1]) + b1[1])
        r2 = mm(r1, w2[0]) - mm(i1, w2[1]) + b2[0]
        i2 = mm(i1, w2[0]) + mm(r1, w2[1]) + b2[1]
        z = F.softshrink(torch.stack([r2, i2], dim=-1).float(), self.lam)   # b, h, w / 2 + 1, 8, 48, 2
        z = torch.view_as_complex(z).reshape(b, h, w // 2 + 1, d)
        return torch.fft.irfft2(z, s=(h, w), dim=(1, 2), norm="ortho").to(x.dtype) + x


class AFNOBlock(nn.Module):
    """FourCastNet's Block (double skip, no dropout): LayerNorm, the
    AFNOFilter, the residual; LayerNorm, an MLP 384 -> 1,536 -> 384 with
    GELU, the residual."""

    def __init__(self, d=384, mlp=1536):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.filter = AFNOFilter(d)
        self.fc1, self.fc2 = nn.Linear(d, mlp), nn.Linear(mlp, d)

    def forward(self, x):                                   # b, h, w, d
        x = x + self.filter(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def trunc_normal_linears(module, std=0.02):
    """The Linear layers' weights from a truncated normal, their biases
    zero: the initialisation of the ViT family (FourCastNet, Swin,
    ConvNeXt), whose losses start from it rather than PyTorch's default."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=std)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


def normal_linears_embeddings(module, std=0.02):
    """The Linear and Embedding weights from a normal of std 0.02 (biases
    as PyTorch leaves them): BERT's initialisation, which the masked
    language models here start from."""
    for m in module.modules():
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=std)


class AFNO(nn.Module):
    """An AFNO/FourCastNet-shaped weather model (Pathak et al. 2022) on a
    20-variable 128x256 grid: a patch embedding of 8x8 patches by a
    stride-8 Conv2d to 384 (a 16x32 grid of 512 tokens) plus a learned
    position embedding, 8 AFNOBlock, a Linear head without bias back to
    20 x 8 x 8 per patch, rearranged to the grid by view and permute."""

    def __init__(self, chans=20, h=128, w=256, p=8, d=384, depth=8, mlp=1536):
        super().__init__()
        self.patch = nn.Conv2d(chans, d, p, p)
        self.pos = nn.Parameter(0.02 * torch.randn(1, (h // p) * (w // p), d))
        self.blocks = nn.Sequential(*[AFNOBlock(d, mlp) for _ in range(depth)])
        self.head = nn.Linear(d, chans * p * p, bias=False)
        self.p = p
        # FourCastNet's _init_weights for the Linear layers (truncated
        # normal, std 0.02, zero bias): PyTorch's default makes the head's
        # output twice as large and the first loss about 25 rather than 12
        trunc_normal_linears(self)

    def forward(self, x):                                   # b, 20, 128, 256
        b, c, hh, ww = x.shape
        p, h, w = self.p, hh // self.p, ww // self.p
        t = self.patch(x).flatten(2).transpose(1, 2) + self.pos   # b, 512, 384
        t = self.blocks(t.reshape(b, h, w, -1))             # b, 16, 32, 384
        y = self.head(t).view(b, h, w, p, p, c)             # b, 16, 32, 8, 8, 20
        return y.permute(0, 5, 1, 3, 2, 4).reshape(b, c, hh, ww)   # b, 20, 128, 256


def afno(batch, device):
    """batch: pairs of states, the model trained to step one to the
    next."""
    def make():
        return (torch.randn(batch, 20, 128, 256, device=device),
                torch.randn(batch, 20, 128, 256, device=device))
    return AFNO(), make, _mse_loss, "adamw"


def _squash(s):
    """CapsNet's squash over the last dimension: s |s|^2 / (1 + |s|^2) / |s|
    (an epsilon under the root)."""
    n2 = (s * s).sum(-1, keepdim=True)
    return s * (n2 / (1 + n2) / torch.sqrt(n2 + 1e-8))


class CapsNet(nn.Module):
    """CapsNet (Sabour et al. 2017) on 28x28 digits: a 9x9 Conv2d to 256
    and ReLU (20x20); the primary capsules a 9x9 stride-2 Conv2d to 256
    (6x6) read as 32 x 6 x 6 = 1,152 capsules of 8, squashed; the digit
    capsules' predictions u_hat = W u by a broadcast matmul of W [1152, 10,
    16, 8] with the b x 1152 capsules; routing by agreement, 3 iterations
    in a Python loop: coupling by a softmax of the logits over the 10
    digits, the coupled sum over the 1,152 capsules, squash, and (but in
    the last) the logits raised by the agreement of u_hat with the output;
    the routing iterations but the last see u_hat detached, as the common
    reimplementations do, so that the gradient flows through the last one
    alone. A decoder of the digit capsules masked by the true label (160)
    -> 512 -> 1,024 -> 784, ReLU, sigmoid. Returns the 10 capsule lengths
    and the reconstruction concatenated (b, 794)."""

    def __init__(self, caps=32, pdim=8, grid=6, classes=10, ddim=16, iters=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 256, 9)
        self.primary = nn.Conv2d(256, caps * pdim, 9, stride=2)
        self.W = nn.Parameter(0.01 * torch.randn(caps * grid * grid, classes, ddim, pdim))
        self.decoder = nn.Sequential(nn.Linear(classes * ddim, 512), nn.ReLU(), nn.Linear(512, 1024), nn.ReLU(),
                                     nn.Linear(1024, 784), nn.Sigmoid())
        self.caps, self.pdim, self.iters = caps, pdim, iters

    def forward(self, inp):
        x, y = inp                                          # b, 1, 28, 28; b
        u = self.primary(F.relu(self.conv1(x)))             # b, 256, 6, 6
        b, _, g, _ = u.shape
        u = u.view(b, self.caps, self.pdim, g, g).permute(0, 1, 3, 4, 2).reshape(b, -1, self.pdim)
        u = _squash(u)                                      # b, 1152, 8
        u_hat = (self.W @ u[:, :, None, :, None]).squeeze(-1)   # b, 1152, 10, 16
        u_stop = u_hat.detach()
        logits = u_hat.new_zeros(u_hat.shape[:3], dtype=torch.float32)   # b, 1152, 10
        for i in range(self.iters):
            c = logits.softmax(2).unsqueeze(-1)             # b, 1152, 10, 1
            if i == self.iters - 1:
                v = _squash((c * u_hat).sum(1))             # b, 10, 16
            else:
                v = _squash((c * u_stop).sum(1))
                logits = logits + (u_stop * v.unsqueeze(1)).sum(-1)
        lengths = v.norm(dim=-1)                            # b, 10
        masked = v * F.one_hot(y, v.shape[1]).unsqueeze(-1).to(v.dtype)
        recon = self.decoder(masked.flatten(1))             # b, 784
        return torch.cat([lengths, recon.to(lengths.dtype)], dim=1)   # b, 794


def _capsnet_loss(out, y):
    """CapsNet's margin loss (m+ 0.9, m- 0.1, down-weighting 0.5, summed
    over the 10 capsules' lengths) plus 0.0005 x the reconstruction's sum
    of squared errors, both averaged over the batch."""
    labels, images = y                                      # b; b, 1, 28, 28
    k = out.shape[1] - images[0].numel()
    t = F.one_hot(labels, k).float()
    n = out[:, :k]
    margin = (t * F.relu(0.9 - n) ** 2 + 0.5 * (1 - t) * F.relu(n - 0.1) ** 2).sum(1).mean()
    recon = ((out[:, k:] - images.flatten(1)) ** 2).sum(1).mean()
    return margin + 0.0005 * recon


def capsnet(batch, device):
    """batch: 28x28 single-channel images in [0, 1] and their digits (the
    labels go in with the images: the decoder masks by them)."""
    def make():
        images = torch.rand(batch, 1, 28, 28, device=device)
        labels = torch.randint(0, 10, (batch,), device=device)
        return (images, labels), (labels, images)
    return CapsNet(), make, _capsnet_loss, "adam"


# -- twentieth round -----------------------------------------------------------
# Models recorded after the nineteenth round: an AlphaFold-2
# Evoformer-shaped stack (an MSA representation of 64 sequences x 128
# residues beside a 128 x 128 pair representation; per block gated row
# attention biased by the pair representation, column attention, the outer
# product mean by one einsum over the sequences to b x 128 x 128 x 1,024,
# triangle multiplicative updates as einsums over the third residue,
# triangle attention with b x 128 x 4 x 128 x 128 logits, LayerNorm before
# every update and dropout masks shared along rows or columns), a
# DeepCAM-shaped climate segmenter (a DeepLabv3+ over 16 channels at
# 384x576: a bottleneck ResNet with BatchNorm at output stride 16, its last
# stage dilated, ASPP at rates 6, 12 and 18, a decoder with a low-level
# skip at 1/4, bilinear upsampling to the full grid, a class-weighted
# cross-entropy), LSTNet (a Conv2d whose kernel spans all 321 series, a GRU
# over 163 steps, a skip GRU over 6 steps of b x 24 sequences made by view
# and permute, a highway Linear), a Multi-gate Mixture-of-Experts (26
# separate 100,000 x 16 tables, 8 expert MLPs one after another, two
# softmax gates applied by bmm, two towers, two BCE terms; thousands of
# rows per batch) and Conv-TasNet (a Conv1d encoder of 512 filters at
# stride 8 to 3,999 frames, 24 blocks of 1x1 Conv1d, PReLU, a global layer
# norm written out and a depthwise Conv1d dilated up to 128 over full-length
# sequences; sigmoid masks, a ConvTranspose1d decoder, the negative SI-SNR
# over both speaker permutations written out).

def _shared_dropout(x, p, dim, training):
    """AlphaFold 2's row- and column-wise dropout: one mask for all the
    entries along dim (DropoutRowwise shares it along dim -3,
    DropoutColumnwise along -2), drawn by F.dropout on ones of the
    reduced shape and broadcast in the multiply."""
    if not training or p == 0:
        return x
    shape = list(x.shape)
    shape[dim] = 1
    return x * F.dropout(x.new_ones(shape), p, True)


class EvoAttention(nn.Module):
    """AlphaFold 2's gated attention: query, key and value Linear without
    bias (heads x c), the queries scaled by 1 / sqrt(c), logits by matmul
    plus a bias broadcast over the rows where there is one, softmax in
    fp32, the weighted values gated by the sigmoid of a Linear of the
    input, an output Linear."""

    def __init__(self, d, heads, c):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(d, heads * c, bias=False) for _ in range(3))
        self.g, self.o = nn.Linear(d, heads * c), nn.Linear(heads * c, d)
        self.heads, self.c = heads, c

    def forward(self, x, bias=None):                        # .., n, d; .., heads, n, n
        *lead, n, _ = x.shape
        q, k, v = (m(x).reshape(*lead, n, self.heads, self.c).transpose(-2, -3)
                   for m in (self.q, self.k, self.v))       # .., heads, n, c
        s = ((q * self.c ** -0.5) @ k.transpose(-1, -2)).float()   # .., heads, n, n
        if bias is not None:
            s = s + bias
        a = (s.softmax(-1).to(v.dtype) @ v).transpose(-2, -3).reshape(*lead, n, -1)   # .., n, heads c
        return self.o(torch.sigmoid(self.g(x)) * a)


class EvoTransition(nn.Module):
    """AlphaFold 2's MSA and pair transitions: LayerNorm, a Linear to 4 x
    the width, ReLU, a Linear back."""

    def __init__(self, d, n=4):
        super().__init__()
        self.ln, self.fc1, self.fc2 = Fp32LayerNorm(d), nn.Linear(d, n * d), nn.Linear(n * d, d)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(self.ln(x))))


class OuterProductMean(nn.Module):
    """AlphaFold 2's outer product mean: LayerNorm of the MSA
    representation, two Linear to 32, for every residue pair the outer
    product of their 32-vectors summed over the sequences (one einsum:
    b, 128, 128, 32 x 32), a Linear 1,024 -> c_z, divided by the number
    of sequences."""

    def __init__(self, cm, cz, c=32):
        super().__init__()
        self.ln, self.a, self.b = Fp32LayerNorm(cm), nn.Linear(cm, c), nn.Linear(cm, c)
        self.o = nn.Linear(c * c, cz)

    def forward(self, m):                                   # b, s, r, cm
        m = self.ln(m)
        a, b = self.a(m), self.b(m)                         # b, s, r, 32 each
        o = torch.einsum("bsic,bsjd->bijcd", a, b.to(a.dtype)).flatten(3)   # b, r, r, 1024
        return self.o(o) / m.shape[1]                       # b, r, r, cz


class TriangleMultiplication(nn.Module):
    """AlphaFold 2's triangle multiplicative update, by outgoing edges (z_ij
    from the sum over k of a_ik b_jk) or incoming ones (of a_ki b_kj):
    LayerNorm; a and b each a Linear gated by the sigmoid of another; the
    sum over k by einsum; LayerNorm; a Linear back to c_z gated by the
    sigmoid of a Linear of the normed input."""

    def __init__(self, cz, c, outgoing):
        super().__init__()
        self.ln_in, self.ln_out = Fp32LayerNorm(cz), Fp32LayerNorm(c)
        self.a, self.a_gate, self.b, self.b_gate = (nn.Linear(cz, c) for _ in range(4))
        self.g, self.o = nn.Linear(cz, cz), nn.Linear(c, cz)
        self.eq = "bikc,bjkc->bijc" if outgoing else "bkic,bkjc->bijc"

    def forward(self, z):                                   # b, r, r, cz
        z = self.ln_in(z)
        a = torch.sigmoid(self.a_gate(z)) * self.a(z)       # b, r, r, c
        b = torch.sigmoid(self.b_gate(z)) * self.b(z)
        x = torch.einsum(self.eq, a, b.to(a.dtype))         # b, r, r, c
        return torch.sigmoid(self.g(z)) * self.o(self.ln_out(x))


class TriangleAttention(nn.Module):
    """AlphaFold 2's triangle self-attention around the starting node (each
    row i of the pair representation attends over its entries j, each head
    biased by b_jk, a Linear of the pair representation) or, on the
    transposed pair representation, around the ending node: LayerNorm, the
    bias, an EvoAttention."""

    def __init__(self, cz, heads, c, starting):
        super().__init__()
        self.ln, self.bias = Fp32LayerNorm(cz), nn.Linear(cz, heads, bias=False)
        self.att, self.starting = EvoAttention(cz, heads, c), starting

    def forward(self, z):                                   # b, r, r, cz
        if not self.starting:
            z = z.transpose(1, 2)
        z = self.ln(z)
        bias = self.bias(z).permute(0, 3, 1, 2).unsqueeze(1)   # b, 1, heads, r, r
        out = self.att(z, bias)                             # b, r, r, cz
        return out if self.starting else out.transpose(1, 2)


class EvoformerBlock(nn.Module):
    """An Evoformer block as AlphaFold 2's algorithm 6, each update added
    to its input: MSA row attention with the pair bias (LayerNorm of m and
    of z, a Linear of z to one bias per head; dropout 0.15 shared along
    the sequences), MSA column attention (on m transposed), the MSA
    transition, the outer product mean into z, the triangle multiplicative
    updates by outgoing and by incoming edges, triangle attention around
    the starting and around the ending node (dropout 0.25 shared along
    rows, along columns for the last), the pair transition."""

    def __init__(self, cm=64, cz=64, msa_heads=8, msa_c=8, pair_heads=4, pair_c=16, opm_c=32, mul_c=64):
        super().__init__()
        self.row_ln, self.row_zln = Fp32LayerNorm(cm), Fp32LayerNorm(cz)
        self.row_bias = nn.Linear(cz, msa_heads, bias=False)
        self.row_att = EvoAttention(cm, msa_heads, msa_c)
        self.col_ln, self.col_att = Fp32LayerNorm(cm), EvoAttention(cm, msa_heads, msa_c)
        self.msa_trans = EvoTransition(cm)
        self.opm = OuterProductMean(cm, cz, opm_c)
        self.tri_out, self.tri_in = TriangleMultiplication(cz, mul_c, True), TriangleMultiplication(cz, mul_c, False)
        self.tri_start = TriangleAttention(cz, pair_heads, pair_c, True)
        self.tri_end = TriangleAttention(cz, pair_heads, pair_c, False)
        self.pair_trans = EvoTransition(cz)

    def forward(self, m, z):                                # b, s, r, cm; b, r, r, cz
        t = self.training
        bias = self.row_bias(self.row_zln(z)).permute(0, 3, 1, 2).unsqueeze(1)   # b, 1, 8, r, r
        m = m + _shared_dropout(self.row_att(self.row_ln(m), bias), 0.15, -3, t)
        m = m + self.col_att(self.col_ln(m).transpose(1, 2)).transpose(1, 2)
        m = m + self.msa_trans(m)
        z = z + self.opm(m)
        z = z + _shared_dropout(self.tri_out(z), 0.25, -3, t)
        z = z + _shared_dropout(self.tri_in(z), 0.25, -3, t)
        z = z + _shared_dropout(self.tri_start(z), 0.25, -3, t)
        z = z + _shared_dropout(self.tri_end(z), 0.25, -2, t)
        return m, z + self.pair_trans(z)


class Evoformer(nn.Module):
    """An AlphaFold-2 Evoformer-shaped stack (Jumper et al. 2021) on crops
    of 128 residues with 64 MSA sequences, c_m = c_z = 64 (AlphaFold's 256
    and 128, its head widths scaled alike: 8 heads of 8 for the MSA
    attentions, 4 of 16 for the triangle attentions, triangle updates of
    64; the outer product mean's 32 kept). The input embedder: the MSA's
    23 tokens to c_m plus the target's 21 residue types to c_m; the pair
    representation the target's left and right embeddings summed plus an
    embedding of the residue offsets clipped to +-32 (65 bins);
    nn.Embedding where AlphaFold has Linear layers of one-hot features.
    Then 4 EvoformerBlock (AlphaFold has 48; its templates, extra-MSA stack
    and recycling are left out) and the distogram head: a Linear of the
    pair representation to 64 bins, symmetrised by adding its transpose.
    Returns b, 64, 128, 128."""

    def __init__(self, cm=64, cz=64, blocks=4, bins=64, msa_tokens=23, residues=21, max_rel=32):
        super().__init__()
        self.msa_emb, self.target_m = nn.Embedding(msa_tokens, cm), nn.Embedding(residues, cm)
        self.left, self.right = nn.Embedding(residues, cz), nn.Embedding(residues, cz)
        self.relpos = nn.Embedding(2 * max_rel + 1, cz)
        self.blocks = nn.ModuleList(EvoformerBlock(cm, cz) for _ in range(blocks))
        self.dist = nn.Linear(cz, bins)
        self.max_rel = max_rel

    def forward(self, inp):
        msa, aatype = inp                                   # b, 64, 128; b, 128
        idx = torch.arange(aatype.shape[1], device=aatype.device)
        rel = (idx[None, :] - idx[:, None]).clamp(-self.max_rel, self.max_rel) + self.max_rel   # 128, 128
        m = self.msa_emb(msa) + self.target_m(aatype).unsqueeze(1)                 # b, 64, 128, 64
        z = self.left(aatype)[:, :, None] + self.right(aatype)[:, None, :] + self.relpos(rel)   # b, 128, 128, 64
        for blk in self.blocks:
            m, z = blk(m, z)
        logits = self.dist(z)                               # b, 128, 128, 64
        return (logits + logits.transpose(1, 2)).permute(0, 3, 1, 2)   # b, 64, 128, 128


def evoformer(batch, device):
    """batch: proteins, each a crop of 128 residues with an MSA of 64
    sequences (20 amino acids, unknown, gap and mask: 23 tokens); the
    targets the distance bin (of 64) of every residue pair."""
    def make():
        return ((torch.randint(0, 23, (batch, 64, 128), device=device),
                 torch.randint(0, 21, (batch, 128), device=device)),
                torch.randint(0, 64, (batch, 128, 128), device=device))
    return Evoformer(), make, _cls_loss, "adam"


class Bottleneck2d(nn.Module):
    """ResNet-50's bottleneck block: a 1x1 Conv-BN-ReLU to the inner width,
    a 3x3 Conv-BN-ReLU (strided, or dilated), a 1x1 Conv-BN to 4 x the
    inner width, the shortcut (a strided 1x1 Conv-BN where the shape
    changes) added, ReLU."""

    def __init__(self, cin, inner, stride=1, dilation=1):
        super().__init__()
        cout = 4 * inner
        self.body = nn.Sequential(
            nn.Conv2d(cin, inner, 1, bias=False), nn.BatchNorm2d(inner), nn.ReLU(inplace=True),
            nn.Conv2d(inner, inner, 3, stride, dilation, dilation, bias=False), nn.BatchNorm2d(inner),
            nn.ReLU(inplace=True), nn.Conv2d(inner, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return F.relu(self.body(x) + (x if self.short is None else self.short(x)))


class DeepCAMASPP(nn.Module):
    """DeepCAM's ASPP at output stride 16: a 1x1 branch and three 3x3
    branches of dilation 6, 12 and 18 (Conv-BN-ReLU, 256 each); the image
    pooling branch a global average pool, a 1x1 Conv2d and a per-channel
    affine in place of BatchNorm (as the reference, which drops the norm
    there: one value per channel and sample), ReLU, expanded over the
    grid; all five concatenated (1,280) and projected by a 1x1
    Conv-BN-ReLU to 256."""

    def __init__(self, cin, c=256, rates=(6, 12, 18)):
        super().__init__()
        self.branches = nn.ModuleList([_cbr(cin, c, 1)] + [_cbr(cin, c, 3, r) for r in rates])
        self.pool = nn.Conv2d(cin, c, 1, bias=False)
        self.pool_w, self.pool_b = nn.Parameter(torch.ones(c, 1, 1)), nn.Parameter(torch.zeros(c, 1, 1))
        self.project = _cbr(c * (len(rates) + 2), c, 1)

    def forward(self, x):                                   # b, 2048, 24, 36
        outs = [br(x) for br in self.branches]              # 4 x (b, 256, 24, 36)
        p = F.relu(self.pool_w * self.pool(F.adaptive_avg_pool2d(x, 1)) + self.pool_b)   # b, 256, 1, 1
        outs.append(p.to(outs[0].dtype).expand(-1, -1, *x.shape[-2:]))
        return self.project(torch.cat(outs, dim=1))         # b, 1280 -> 256, 24, 36


class DeepCAM(nn.Module):
    """A DeepCAM-shaped climate segmenter (Kurth et al. 2018, the MLPerf HPC
    benchmark): a DeepLabv3+ over 16 atmospheric variables at 384x576 (the
    benchmark's 768x1152 halved each way) to 3 classes (background,
    tropical cyclone, atmospheric river). The encoder a ResNet-50-shaped
    bottleneck network of 2 blocks per stage (ResNet-50 has 3, 4, 6, 3): a
    7x7 stride-2 stem from 16 channels to 64 and a max-pool to 1/4, stages
    of inner width 64, 128, 256 and 512 (256 .. 2,048 out), the second and
    third strided, the fourth dilated by 2 in place of its stride (output
    stride 16: 24x36); BatchNorm2d throughout. The DeepCAMASPP; the
    decoder: the ASPP's output upsampled bilinearly to 1/4 (96x144) and
    concatenated with the first stage's output reduced by a 1x1
    Conv-BN-ReLU to 48, two 3x3 Conv-BN-ReLU of 256, a 1x1 Conv2d to the 3
    classes, bilinear upsampling to 384x576. (The benchmark's encoder is
    an aligned Xception and its decoder upsamples by ConvTranspose2d; the
    ResNet encoder and bilinear decoder here are DeepLabv3+'s own.)"""

    def __init__(self, cin=16, classes=3, depths=(2, 2, 2, 2), widths=(64, 128, 256, 512)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(cin, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))   # b, 64, 96, 144
        stages, c = [], 64
        for i, (n, w) in enumerate(zip(depths, widths)):
            blocks = []
            for j in range(n):
                blocks.append(Bottleneck2d(c, w, 2 if j == 0 and i in (1, 2) else 1, 2 if i == 3 else 1))
                c = 4 * w
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.aspp = DeepCAMASPP(c)
        self.low = _cbr(4 * widths[0], 48, 1)
        self.decoder = nn.Sequential(_cbr(256 + 48, 256, 3), _cbr(256, 256, 3), nn.Conv2d(256, classes, 1))

    def forward(self, x):                                   # b, 16, 384, 576
        low = self.layer1(self.stem(x))                     # b, 256, 96, 144
        f = self.layer4(self.layer3(self.layer2(low)))      # b, 2048, 24, 36
        a = F.interpolate(self.aspp(f), size=low.shape[-2:], mode="bilinear", align_corners=False)   # b, 256, 96, 144
        out = self.decoder(torch.cat([a, self.low(low).to(a.dtype)], dim=1))   # b, 304 -> 3, 96, 144
        return F.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)   # b, 3, 384, 576


def _deepcam_loss(out, y):
    """DeepCAM's CELoss: every pixel's cross-entropy weighted by its true
    class's weight, then the plain mean over the pixels (not
    cross_entropy's weighted mean, which divides by the weights' sum)."""
    labels, weight = y                                      # b, 384, 576; 3
    return F.cross_entropy(out, labels, weight=weight, reduction="none").mean()


def deepcam(batch, device):
    """batch: 16-channel 384x576 snapshots and per-pixel labels; the class
    weights are the reference's, the classes' pixel frequencies (98.6%,
    0.046% and 1.3%) to the power -0.125, made once on the device as the
    reference's criterion holds them."""
    freqs = (0.986267818390377, 0.0004578708870701058, 0.01327431072255291)

    def make():
        return (torch.randn(batch, 16, 384, 576, device=device),
                (torch.randint(0, 3, (batch, 384, 576), device=device),
                 torch.tensor([f ** -0.125 for f in freqs], device=device)))
    return DeepCAM(), make, _deepcam_loss, "adamw"


class LSTNet(nn.Module):
    """LSTNet (Lai et al. 2018) as the authors' code builds it, on the
    electricity data's shape (321 series, windows of 168 hourly steps): a
    Conv2d of 100 filters, each 6 steps x all 321 series, ReLU and dropout
    0.2 (163 steps of 100); a GRU of 100 over them (time-first), its last
    state; the skip GRU of 5 over the last 6 x 24 = 144 steps regrouped by
    view and permute into b x 24 sequences of 6 steps (one per hour of the
    day), its last states (b, 120); a Linear of the 220 to the 321 series
    plus the highway (the autoregressive part: one Linear 24 -> 1 over
    each series' last 24 values, shared by the series); sigmoid (the data
    scaled by each series' maximum)."""

    def __init__(self, series=321, window=168, filters=100, k=6, hidden=100, skip_hidden=5, skip=24, hw=24,
                 drop=0.2):
        super().__init__()
        self.conv = nn.Conv2d(1, filters, (k, series))
        self.gru, self.gru_skip = nn.GRU(filters, hidden), nn.GRU(filters, skip_hidden)
        self.out = nn.Linear(hidden + skip * skip_hidden, series)
        self.highway = nn.Linear(hw, 1)
        self.pt, self.skip, self.hw, self.drop = (window - k) // skip, skip, hw, drop

    def forward(self, x):                                   # b, 168, 321
        b, _, m = x.shape
        c = F.dropout(F.relu(self.conv(x.unsqueeze(1))), self.drop, self.training).squeeze(3)   # b, 100, 163
        _, r = self.gru(c.permute(2, 0, 1))                 # 1, b, 100
        r = F.dropout(r.squeeze(0), self.drop, self.training)
        s = c[:, :, -self.pt * self.skip:].reshape(b, -1, self.pt, self.skip)   # b, 100, 6, 24
        s = s.permute(2, 0, 3, 1).reshape(self.pt, b * self.skip, -1)           # 6, b 24, 100
        _, s = self.gru_skip(s)                             # 1, b 24, 5
        s = F.dropout(s.reshape(b, -1), self.drop, self.training)              # b, 120
        res = self.out(torch.cat([r, s.to(r.dtype)], dim=1))                   # b, 321
        z = self.highway(x[:, -self.hw:].transpose(1, 2).reshape(-1, self.hw)).view(b, m)   # b 321, 24 -> b, 321
        return torch.sigmoid(res + z.to(res.dtype))


def lstnet(batch, device):
    """batch: windows of 168 steps of the 321 series scaled to [0, 1]; the
    target the series 12 steps on (LSTNet's default horizon)."""
    def make():
        return (torch.rand(batch, 168, 321, device=device),
                torch.rand(batch, 321, device=device))
    return LSTNet(), make, _l1_loss, "adam"


class MMoE(nn.Module):
    """A Multi-gate Mixture-of-Experts ranker (Ma et al. 2018), laid out as
    DeepCTR's MMOE on Criteo-shaped inputs: 26 categorical fields, each
    its own nn.Embedding table of 100,000 x 16 (26 gathers, dense
    gradients), and 13 dense features, concatenated (429); 8 experts, each
    an MLP 429 -> 256 -> 128 with ReLU, run one after another; per task a
    gate (a Linear 429 -> 8 without bias and a softmax, as the paper's)
    weighting the experts' outputs by bmm (b x 1 x 8 by b x 8 x 128), and
    a tower MLP 128 -> 64 -> 1. Two tasks (say click and conversion):
    returns their logits (b, 2)."""

    def __init__(self, fields=26, vocab=100000, d=16, dense=13, experts=8, hidden=(256, 128), tasks=2, tower=64):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(vocab, d) for _ in range(fields))
        for e in self.embs:
            nn.init.normal_(e.weight, std=1e-4)     # DeepCTR's init_std: N(0, 1) rows would swamp the dense features
        cin = fields * d + dense
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(cin, hidden[0]), nn.ReLU(),
                                                   nn.Linear(hidden[0], hidden[1]), nn.ReLU())
                                     for _ in range(experts))
        self.gates = nn.ModuleList(nn.Linear(cin, experts, bias=False) for _ in range(tasks))
        self.towers = nn.ModuleList(nn.Sequential(nn.Linear(hidden[1], tower), nn.ReLU(), nn.Linear(tower, 1))
                                    for _ in range(tasks))

    def forward(self, inp):
        dense, cat = inp                                    # b, 13; b, 26
        e = [emb(i) for emb, i in zip(self.embs, cat.unbind(1))]   # 26 x (b, 16)
        x = torch.cat(e + [dense.to(e[0].dtype)], dim=1)   # b, 429
        h = torch.stack([ex(x) for ex in self.experts], dim=1)     # b, 8, 128
        outs = []
        for gate, tower in zip(self.gates, self.towers):
            g = gate(x).float().softmax(-1)                 # b, 8
            outs.append(tower(torch.bmm(g.unsqueeze(1).to(h.dtype), h).squeeze(1)))   # b, 1
        return torch.cat(outs, dim=1)                       # b, 2


def _two_task_bce_loss(out, y):
    """The two tasks' BCE terms, summed with equal weights."""
    return (F.binary_cross_entropy_with_logits(out[:, 0], y[:, 0])
            + F.binary_cross_entropy_with_logits(out[:, 1], y[:, 1]))


def mmoe(batch, device):
    """batch: impressions of 13 dense features and 26 categorical ids, each
    with two 0/1 labels."""
    def make():
        return ((torch.randn(batch, 13, device=device),
                 torch.randint(0, 100000, (batch, 26), device=device)),
                torch.randint(0, 2, (batch, 2), device=device).float())
    return MMoE(), make, _two_task_bce_loss, "adam"


class GlobalLayerNorm(nn.Module):
    """Conv-TasNet's global layer norm (gLN): each sample normalised by the
    mean and variance over all its channels and frames, computed in fp32
    and written out (mean, subtract, square, mean, rsqrt) as the paper
    defines it, then a per-channel gain and bias; cast back to the input's
    dtype."""

    def __init__(self, c, eps=1e-8):
        super().__init__()
        self.gamma, self.beta = nn.Parameter(torch.ones(1, c, 1)), nn.Parameter(torch.zeros(1, c, 1))
        self.eps = eps

    def forward(self, x):                                   # b, c, t
        y = x.float()
        d = y - y.mean((1, 2), keepdim=True)
        var = d.pow(2).mean((1, 2), keepdim=True)
        return (self.gamma * d * torch.rsqrt(var + self.eps) + self.beta).to(x.dtype)


class TasBlock(nn.Module):
    """A Conv-TasNet 1-D convolutional block: a 1x1 Conv1d 128 -> 512,
    PReLU, gLN, a depthwise Conv1d of kernel 3 at dilation d (padding d:
    non-causal), PReLU, gLN, then a 1x1 Conv1d back to 128 added to the
    input (the residual path) and one to 128 (the skip path). The last
    block has no residual Conv1d: nothing reads it, and a parameter
    without a gradient would stall DDP's reduction."""

    def __init__(self, b=128, h=512, k=3, dilation=1, skip=128, last=False):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(b, h, 1), nn.PReLU(), GlobalLayerNorm(h),
                                 nn.Conv1d(h, h, k, padding=dilation * (k - 1) // 2, dilation=dilation, groups=h),
                                 nn.PReLU(), GlobalLayerNorm(h))
        self.res = None if last else nn.Conv1d(h, b, 1)
        self.skip = nn.Conv1d(h, skip, 1)

    def forward(self, x):                                   # b, 128, t
        y = self.net(x)                                     # b, 512, t
        return (None if self.res is None else x + self.res(y)), self.skip(y)


class ConvTasNet(nn.Module):
    """Conv-TasNet (Luo and Mesgarani 2019) in the paper's best non-causal
    configuration (N 512, L 16, B 128, Sc 128, H 512, P 3, X 8, R 3) on 4 s
    of 8 kHz two-speaker mixtures: the encoder a Conv1d 1 -> 512 of kernel
    16 and stride 8 without bias, ReLU (3,999 frames); the separator gLN,
    a 1x1 Conv1d 512 -> 128, 3 repeats of 8 TasBlock at dilations 1, 2,
    .., 128, the blocks' skip outputs summed, PReLU, a 1x1 Conv1d to 2 x
    512 and sigmoid: a mask per speaker over the encoder's output; the
    masked encodings of both speakers through one ConvTranspose1d 512 -> 1
    of kernel 16 and stride 8 without bias (32,000 samples each). Returns
    b, 2, 32000."""

    def __init__(self, n=512, l=16, b=128, h=512, k=3, x=8, r=3, speakers=2):
        super().__init__()
        self.encoder = nn.Conv1d(1, n, l, stride=l // 2, bias=False)
        self.norm, self.bottleneck = GlobalLayerNorm(n), nn.Conv1d(n, b, 1)
        self.blocks = nn.ModuleList(TasBlock(b, h, k, 2 ** i, b, last=j == r - 1 and i == x - 1)
                                    for j in range(r) for i in range(x))
        self.mask = nn.Sequential(nn.PReLU(), nn.Conv1d(b, speakers * n, 1))
        self.decoder = nn.ConvTranspose1d(n, 1, l, stride=l // 2, bias=False)
        self.speakers = speakers

    def forward(self, mix):                                 # b, 32000
        w = F.relu(self.encoder(mix.unsqueeze(1)))          # b, 512, 3999
        x = self.bottleneck(self.norm(w))                   # b, 128, 3999
        skips = 0
        for blk in self.blocks:
            x, s = blk(x)
            skips = skips + s                               # b, 128, 3999
        b, n, t = w.shape
        m = torch.sigmoid(self.mask(skips)).view(b, self.speakers, n, t)   # b, 2, 512, 3999
        y = self.decoder((m * w.unsqueeze(1).to(m.dtype)).flatten(0, 1))   # b 2, 1, 32000
        return y.view(b, self.speakers, -1)                 # b, 2, 32000


def _si_snr(est, ref, eps=1e-8):
    """SI-SNR in dB of estimates against references (.., t), both made
    zero-mean: the estimate's projection on the reference over the rest."""
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    proj = (est * ref).sum(-1, keepdim=True) / (ref.pow(2).sum(-1, keepdim=True) + eps) * ref
    return 10 * torch.log10(proj.pow(2).sum(-1) / ((est - proj).pow(2).sum(-1) + eps) + eps)


def _pit_si_snr_loss(out, y):
    """Conv-TasNet's objective: the negative SI-SNR under utterance-level
    permutation invariance, both pairings of the 2 estimates with the 2
    sources scored and the better one kept per sample."""
    direct = _si_snr(out, y).mean(1)                        # b
    swapped = _si_snr(out.flip(1), y).mean(1)
    return -torch.max(direct, swapped).mean()


def convtasnet(batch, device):
    """batch: 4 s mixtures at 8 kHz, each the sum of two sources (the
    targets)."""
    def make():
        src = 0.1 * torch.randn(batch, 2, 32000, device=device)
        return src.sum(1), src
    return ConvTasNet(), make, _pit_si_snr_loss, "adam"


# -- twenty-first round --------------------------------------------------------
# Models recorded after the twentieth round: a SegFormer-B0-shaped segmenter
# at 512x512 (overlapping patch embeddings by strided 7x7 and 3x3 Conv2d,
# attention over keys and values reduced by a strided Conv2d and LayerNorm,
# so that the 16,384 tokens of the first stage attend to 256; matmul and
# softmax written out; Mix-FFN with a 3x3 depthwise Conv2d between its
# Linear layers; an all-MLP decoder that upsamples four maps bilinearly to
# 1/4 and fuses 1,024 channels at 128x128), a Reformer-shaped LM over 4,096
# tokens (LSH attention written out: random rotations, argmax buckets, an
# argsort of the bucket keys, gathers into sorted order, attention within
# chunks of 64 and the chunk before, the outputs unsorted by gathering with
# the argsort of the sort and the hash rounds combined by their
# logsumexps; a feed-forward run chunk by chunk in a Python loop), an
# NFNet-F0-shaped normalizer-free ResNet (weight standardisation of every
# convolution recomputed from its weight at each call, scaled GELU,
# skip-init gains, squeeze-excite, grouped 3x3 convolutions, adaptive
# gradient clipping by a hook on each parameter: unit-wise norms, a ratio
# and a where per gradient during the backward), an E(n)-equivariant GNN
# (edge MLPs over all-pairs edges of 29-atom molecules, coordinate updates
# by index_add_ of relative positions weighted by an MLP, node MLPs over
# sums by index_add_; tens of thousands of edges per batch) and FiBiNET
# (39 separate 100,000 x 16 tables, a squeeze-excitation over the fields
# and bilinear interactions of the 741 field pairs gathered by
# index_select; a 23,712-wide first DNN layer; thousands of rows per batch).

class EfficientSelfAttention(nn.Module):
    """SegFormer's efficient self-attention: queries from every token; keys
    and values from the tokens reduced by a Conv2d of kernel and stride R
    (each R x R patch to one token, R^2 fewer keys) and a LayerNorm where R
    > 1; heads of 32, logits by matmul, softmax in fp32, an output Linear.
    No attention dropout (the reference's is 0)."""

    def __init__(self, d, heads, sr):
        super().__init__()
        self.q, self.kv, self.proj = nn.Linear(d, d), nn.Linear(d, 2 * d), nn.Linear(d, d)
        self.sr = nn.Conv2d(d, d, sr, sr) if sr > 1 else None
        self.norm = Fp32LayerNorm(d) if sr > 1 else None
        self.heads = heads

    def forward(self, x, h, w):                             # b, n, d (n = h w)
        b, n, d = x.shape
        dh = d // self.heads
        q = self.q(x).view(b, n, self.heads, dh).transpose(1, 2)   # b, heads, n, dh
        if self.sr is not None:
            r = self.sr(x.transpose(1, 2).reshape(b, d, h, w))      # b, d, h / R, w / R
            x = self.norm(r.flatten(2).transpose(1, 2))             # b, n / R^2, d
        k, v = self.kv(x).view(b, -1, 2, self.heads, dh).permute(2, 0, 3, 1, 4)   # b, heads, m, dh each
        s = (q @ k.transpose(-1, -2)).float() * dh ** -0.5          # b, heads, n, m
        a = s.softmax(-1).to(v.dtype) @ v                   # b, heads, n, dh
        return self.proj(a.transpose(1, 2).reshape(b, n, d))


class MixFFN(nn.Module):
    """SegFormer's Mix-FFN: a Linear to 4 x the width, the tokens laid back
    on their h x w grid for a 3x3 depthwise Conv2d (the only positional
    information the encoder has), GELU, a Linear back."""

    def __init__(self, d, hidden):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, d)
        self.dw = nn.Conv2d(hidden, hidden, 3, 1, 1, groups=hidden)

    def forward(self, x, h, w):                             # b, n, d
        b, n, _ = x.shape
        y = self.fc1(x).transpose(1, 2).reshape(b, -1, h, w)   # b, 4d, h, w
        return self.fc2(F.gelu(self.dw(y).flatten(2).transpose(1, 2)))   # b, n, d


class SegFormerBlock(nn.Module):
    """A Mix Transformer block, pre-LN: x + attention(LN(x)), then x +
    Mix-FFN(LN(x)). Drop path (0.1 in the reference) is left out."""

    def __init__(self, d, heads, sr, ratio=4):
        super().__init__()
        self.ln1, self.attn = Fp32LayerNorm(d), EfficientSelfAttention(d, heads, sr)
        self.ln2, self.ffn = Fp32LayerNorm(d), MixFFN(d, ratio * d)

    def forward(self, x, h, w):
        x = x + self.attn(self.ln1(x), h, w)
        return x + self.ffn(self.ln2(x), h, w)


class SegFormer(nn.Module):
    """A SegFormer-B0-shaped segmenter (Xie et al. 2021) at 512x512 with
    ADE20K's 150 classes. The MiT-B0 encoder: 4 stages, each an
    overlapping patch embedding (a Conv2d of kernel 7 and stride 4 for the
    first, 3 and stride 2 after, padding k // 2; LayerNorm), blocks, a
    LayerNorm; widths 32, 64, 160, 256 at 1/4 .. 1/32 (128x128 .. 16x16),
    2 blocks each, 1, 2, 5, 8 heads, reduction ratios 8, 4, 2, 1 (so that
    every stage's keys and values are 16x16, 256 tokens). The all-MLP
    decoder: each stage's map through a Linear to 256, upsampled
    bilinearly to 128x128, concatenated (1,024), fused by a 1x1
    Conv-BN-ReLU to 256, Dropout2d 0.1, a 1x1 Conv2d to the classes.
    Returns b, 150, 128, 128: the loss is taken at 1/4 (the reference
    upsamples the logits to 512x512 first)."""

    def __init__(self, classes=150, widths=(32, 64, 160, 256), depths=(2, 2, 2, 2), heads=(1, 2, 5, 8),
                 srs=(8, 4, 2, 1), dec=256):
        super().__init__()
        self.patch, self.patch_ln = nn.ModuleList(), nn.ModuleList()
        self.stages, self.norms = nn.ModuleList(), nn.ModuleList()
        c = 3
        for i, (w, n, h, sr) in enumerate(zip(widths, depths, heads, srs)):
            k, s = (7, 4) if i == 0 else (3, 2)
            self.patch.append(nn.Conv2d(c, w, k, s, k // 2))
            self.patch_ln.append(Fp32LayerNorm(w))
            self.stages.append(nn.ModuleList(SegFormerBlock(w, h, sr) for _ in range(n)))
            self.norms.append(Fp32LayerNorm(w))
            c = w
        self.lin = nn.ModuleList(nn.Linear(w, dec) for w in widths)
        self.fuse = nn.Sequential(nn.Conv2d(len(widths) * dec, dec, 1, bias=False), nn.BatchNorm2d(dec), nn.ReLU())
        self.drop, self.cls = nn.Dropout2d(0.1), nn.Conv2d(dec, classes, 1)

    def forward(self, x):                                   # b, 3, 512, 512
        feats = []
        for patch, patch_ln, blocks, norm in zip(self.patch, self.patch_ln, self.stages, self.norms):
            y = patch(x)                                    # b, c, h, w
            b, c, h, w = y.shape
            t = patch_ln(y.flatten(2).transpose(1, 2))      # b, h w, c
            for blk in blocks:
                t = blk(t, h, w)
            x = norm(t).transpose(1, 2).reshape(b, c, h, w)
            feats.append(x)                                 # 128^2 x 32 .. 16^2 x 256
        size = feats[0].shape[-2:]
        outs = []
        for f, lin in zip(feats, self.lin):
            y = lin(f.flatten(2).transpose(1, 2)).transpose(1, 2).reshape(f.shape[0], -1, *f.shape[-2:])
            outs.append(y if y.shape[-2:] == size else
                        F.interpolate(y, size=size, mode="bilinear", align_corners=False))   # b, 256, 128, 128
        y = self.fuse(torch.cat(outs[::-1], dim=1))         # b, 1024 -> 256, 128, 128
        return self.cls(self.drop(y))                       # b, 150, 128, 128


def segformer(batch, device):
    """batch: 512x512 RGB crops and their labels at 1/4 (128x128)."""
    def make():
        return (torch.randn(batch, 3, 512, 512, device=device),
                torch.randint(0, 150, (batch, 128, 128), device=device))
    return SegFormer(), make, _cls_loss, "adamw"


class LSHAttention(nn.Module):
    """Reformer's LSH self-attention, causal, with shared queries and keys:
    one Linear gives both (the keys are the queries scaled to unit
    length), one the values. Hashing, under no_grad: the queries of each
    head rotated by fresh random rotations (d_head x hashes x 32, drawn
    every call as the reference draws them), the bucket the argmax over
    [xR, -xR] (64 buckets: the sequence over the chunk length); each
    round's buckets offset by the round, times the length, plus the
    position give the sort keys, argsorted. Queries, keys, values and
    positions are gathered into that order and cut into chunks of 64; each
    chunk attends to itself and the chunk before it (the first to the
    last, as the reference's look-one-back), masked causally by the
    gathered positions, a token's logit on itself set to -5e4 (used only
    when nothing else is there); softmax through the logsumexp in fp32.
    The outputs and the logsumexps are unsorted by gathering with the
    argsort of the sort indices, and the rounds summed with weights
    softmax(logsumexp) over the rounds."""

    def __init__(self, d, heads, bucket=64, hashes=2):
        super().__init__()
        self.qk, self.v = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d)
        self.heads, self.bucket, self.hashes = heads, bucket, hashes

    def forward(self, x):                                   # b, t, d
        b, t, d = x.shape
        h, dh, c, r = self.heads, d // self.heads, self.bucket, self.hashes
        n = b * h
        qk = self.qk(x).view(b, t, h, dh).transpose(1, 2).reshape(n, t, dh)   # b h, t, dh
        v = self.v(x).view(b, t, h, dh).transpose(1, 2).reshape(n, t, dh)
        nb = t // c                                          # 64 buckets
        pos = torch.arange(t, device=x.device)
        with torch.no_grad():
            rot = torch.randn(dh, r, nb // 2, device=x.device, dtype=qk.dtype)
            xr = torch.einsum("ntd,drk->nrtk", qk, rot)     # b h, rounds, t, 32
            buckets = torch.cat([xr, -xr], dim=-1).argmax(-1)   # b h, rounds, t
            keys = (buckets + nb * torch.arange(r, device=x.device).view(1, r, 1)) * t + pos
            sort = keys.flatten(1).argsort(dim=-1)          # b h, rounds t
            undo = sort.argsort(dim=-1)
        st = sort % t                                       # the position of each sorted entry
        sq = qk.gather(1, st.unsqueeze(-1).expand(-1, -1, dh)).view(n, -1, c, dh)   # b h, chunks, 64, dh
        sv = v.gather(1, st.unsqueeze(-1).expand(-1, -1, dh)).view(n, -1, c, dh)
        sk = F.normalize(sq.float(), dim=-1).to(sq.dtype)
        qt = st.view(n, -1, c)                              # b h, chunks, 64
        # each chunk with the one before it: 128 keys per query
        sk, sv = torch.cat([sk, sk.roll(1, 1)], dim=2), torch.cat([sv, sv.roll(1, 1)], dim=2)
        kt = torch.cat([qt, qt.roll(1, 1)], dim=2)          # b h, chunks, 128
        s = (sq @ sk.transpose(-1, -2)).float() * dh ** -0.5   # b h, chunks, 64, 128
        s = s.masked_fill(qt.unsqueeze(-1) < kt.unsqueeze(-2), -1e9)
        s = s.masked_fill(qt.unsqueeze(-1) == kt.unsqueeze(-2), -5e4)
        lse = s.logsumexp(-1, keepdim=True)                 # b h, chunks, 64, 1
        o = (s - lse).exp().to(sv.dtype) @ sv               # b h, chunks, 64, dh
        o = o.view(n, -1, dh).gather(1, undo.unsqueeze(-1).expand(-1, -1, dh)).view(n, r, t, dh)
        lse = lse.view(n, -1).gather(1, undo).view(n, r, t, 1)
        w = (lse - lse.logsumexp(1, keepdim=True)).exp()    # each round's share, b h, rounds, t, 1
        o = (o * w.to(o.dtype)).sum(1)                      # b h, t, dh
        return self.o(o.view(b, h, t, dh).transpose(1, 2).reshape(b, t, d))


class ReformerBlock(nn.Module):
    """A Reformer layer with plain pre-LN residuals (the reference's
    reversible pairs are left out): x + LSH attention(LN(x)), then x + the
    ReLU feed-forward 512 -> 2,048 -> 512 of LN(x) applied to chunks of
    1,024 positions one after another in a Python loop, as the reference's
    chunked feed-forward (without reversibility autograd keeps every
    chunk's activations, so the chunking shapes the kernels, not the
    memory)."""

    def __init__(self, d, heads, ff, chunk=1024):
        super().__init__()
        self.ln1, self.attn = Fp32LayerNorm(d), LSHAttention(d, heads)
        self.ln2, self.fc1, self.fc2 = Fp32LayerNorm(d), nn.Linear(d, ff), nn.Linear(ff, d)
        self.chunk = chunk

    def forward(self, x):                                   # b, 4096, 512
        x = x + self.attn(self.ln1(x))
        y = self.ln2(x)
        return x + torch.cat([self.fc2(F.relu(self.fc1(part))) for part in y.split(self.chunk, dim=1)], dim=1)


class ReformerLM(nn.Module):
    """A Reformer-shaped LM (Kitaev et al. 2020) over 4,096 tokens: a
    16,000-token embedding of 512 plus axial position embeddings (64 x 64
    positions, 256 + 256 wide: one table along each axis, broadcast and
    concatenated), 6 ReformerBlock of 8 heads (2 hash rounds, chunks of
    64), a final LayerNorm and an untied Linear to the vocabulary. No
    dropout."""

    def __init__(self, vocab=16000, d=512, layers=6, heads=8, ff=2048, axial=(64, 64)):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.ax0 = nn.Parameter(torch.randn(axial[0], 1, d // 2))
        self.ax1 = nn.Parameter(torch.randn(1, axial[1], d // 2))
        self.blocks = nn.ModuleList(ReformerBlock(d, heads, ff) for _ in range(layers))
        self.ln, self.head = Fp32LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx):                                 # b, 4096
        a0, a1 = self.ax0.shape[0], self.ax1.shape[1]
        pos = torch.cat([self.ax0.expand(a0, a1, -1), self.ax1.expand(a0, a1, -1)], dim=-1).view(a0 * a1, -1)
        x = self.tok(idx) + pos[:idx.shape[1]]              # b, 4096, 512
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))                        # b, 4096, 16000


def reformer(batch, device):
    return ReformerLM(), _tokens(batch, 4096, 16000, device), _lm_loss, "adam"


def _scaled_gelu(x):
    """NFNet's GELU times 1.7015, which keeps unit-variance inputs at unit
    variance (the gamma of the reference's activation table)."""
    return F.gelu(x) * 1.7015043497085571


class WSConv2d(nn.Conv2d):
    """NFNet's scaled weight-standardised Conv2d: at every call each output
    filter's weights less their mean over the fan-in, divided by sqrt(var
    x fan-in) (floored at 1e-4), times a learnable gain per output channel;
    the standardised weight is made from the fp32 parameter in fp32 each
    step, so the backward runs through it too."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.gain = nn.Parameter(torch.ones(self.out_channels))

    def forward(self, x):
        w = self.weight
        mean = w.mean((1, 2, 3), keepdim=True)
        var = (w - mean).pow(2).mean((1, 2, 3), keepdim=True)
        scale = torch.rsqrt(torch.clamp(var * w[0].numel(), min=1e-4)) * self.gain.view(-1, 1, 1, 1)
        return F.conv2d(x, (w - mean) * scale, self.bias, self.stride, self.padding, self.dilation, self.groups)


class NFBlock(nn.Module):
    """NFNet's bottleneck block: out = scaled GELU(x) x beta (1 / the
    expected std of x); the shortcut x, or where the shape changes a 1x1
    WSConv2d of out (average-pooled 2x2 first when strided); the residual
    branch a 1x1 WSConv2d to half the output width, two 3x3 grouped
    WSConv2d (groups of 128 channels, the first strided), a 1x1 WSConv2d to
    the output width, scaled GELU before each; squeeze-excite (spatial
    mean, Linear to half, ReLU, Linear, sigmoid) times 2; the branch times
    alpha 0.2 and a skip-init gain (a scalar, zero at first) added to the
    shortcut. Stochastic depth is off."""

    def __init__(self, cin, cout, stride, beta, alpha=0.2, ratio=0.5, group=128, se=0.5):
        super().__init__()
        width = int(cout * ratio)
        groups = width // group
        self.conv0 = WSConv2d(cin, width, 1)
        self.conv1 = WSConv2d(width, width, 3, stride, 1, groups=groups)
        self.conv1b = WSConv2d(width, width, 3, 1, 1, groups=groups)
        self.conv2 = WSConv2d(width, cout, 1)
        self.short = WSConv2d(cin, cout, 1) if stride > 1 or cin != cout else None
        self.se = nn.Sequential(nn.Linear(cout, int(cout * se)), nn.ReLU(), nn.Linear(int(cout * se), cout))
        self.skip_gain = nn.Parameter(torch.zeros(()))
        self.stride, self.beta, self.alpha = stride, beta, alpha

    def forward(self, x):                                   # b, cin, h, w
        out = _scaled_gelu(x) * self.beta
        if self.stride > 1:
            shortcut = self.short(F.avg_pool2d(out, 2))
        else:
            shortcut = x if self.short is None else self.short(out)
        out = self.conv0(out)
        out = self.conv1(_scaled_gelu(out))
        out = self.conv1b(_scaled_gelu(out))
        out = self.conv2(_scaled_gelu(out))                 # b, cout, h / s, w / s
        g = torch.sigmoid(self.se(out.mean((2, 3))))        # b, cout
        out = 2 * g[:, :, None, None].to(out.dtype) * out
        return out * (self.skip_gain * self.alpha).to(out.dtype) + shortcut


def _unitwise_norm(x):
    """AGC's unit-wise norm: per output unit (over all but the first
    dimension) for weights, the whole norm for vectors and scalars."""
    if x.ndim <= 1:
        return torch.linalg.vector_norm(x)
    return torch.linalg.vector_norm(x, dim=tuple(range(1, x.ndim)), keepdim=True)


def _agc(p, g, clip=0.01, eps=1e-3):
    """Adaptive gradient clipping of one parameter's gradient: each unit's
    gradient scaled down to clip x max(|W|, eps) of that unit where its
    norm is larger (the paper's lambda of 0.01)."""
    max_norm = _unitwise_norm(p.detach()).clamp(min=eps) * clip
    g_norm = _unitwise_norm(g)
    return torch.where(g_norm > max_norm, g * (max_norm / g_norm.clamp(min=1e-6)), g)


class NFNet(nn.Module):
    """An NFNet-F0-shaped normalizer-free ResNet (Brock et al. 2021) at
    192x192 (F0's training size), its depths cut from 1, 2, 6, 3 to 1, 2,
    3, 1 so that a CPU step stays within seconds: the stem four 3x3
    WSConv2d (3 -> 16 stride 2, 32, 64, 128 stride 2; scaled GELU between)
    to 48x48; stages of NFBlock of widths 256, 512, 1,536 and 1,536, the
    first stride 1, the rest 2 (48 .. 6), beta from the expected std
    (reset at each stage's first block, growing by alpha^2 per block);
    a 1x1 WSConv2d to 3,072, scaled GELU, the spatial mean, dropout 0.2, a
    Linear to the 1,000 classes (N(0, 0.01)). Adaptive gradient clipping
    runs as a hook on every parameter but the classifier's (which the
    paper leaves unclipped): each gradient is clipped as the backward
    produces it, where the reference clips all of them after the backward
    and before the update. The recorded step runs the backward and the
    optimizer's step back to back, so the hook is the one place left for
    it; each parameter's clipping reads only its own weight and gradient,
    so the clipped gradients are the same (under DDP the hooks clip each
    rank's gradient before the all-reduce, not the averaged one)."""

    def __init__(self, classes=1000, depths=(1, 2, 3, 1), widths=(256, 512, 1536, 1536), alpha=0.2, drop=0.2):
        super().__init__()
        self.stem = nn.ModuleList([WSConv2d(3, 16, 3, 2, 1), WSConv2d(16, 32, 3, 1, 1), WSConv2d(32, 64, 3, 1, 1),
                                   WSConv2d(64, widths[0] // 2, 3, 2, 1)])
        blocks, c, expected = [], widths[0] // 2, 1.0
        for i, (n, w) in enumerate(zip(depths, widths)):
            for j in range(n):
                blocks.append(NFBlock(c, w, 2 if i > 0 and j == 0 else 1, 1.0 / expected, alpha))
                c = w
                if j == 0:
                    expected = 1.0
                expected = (expected ** 2 + alpha ** 2) ** 0.5
        self.blocks = nn.Sequential(*blocks)
        self.final = WSConv2d(c, 2 * c, 1)
        self.drop, self.fc = nn.Dropout(drop), nn.Linear(2 * c, classes)
        nn.init.normal_(self.fc.weight, std=0.01)
        nn.init.zeros_(self.fc.bias)
        for name, p in self.named_parameters():
            if not name.startswith("fc."):
                p.register_hook(lambda g, p=p: _agc(p, g))

    def forward(self, x):                                   # b, 3, 192, 192
        for i, conv in enumerate(self.stem):
            x = conv(x if i == 0 else _scaled_gelu(x))      # .. b, 128, 48, 48
        x = self.blocks(x)                                  # b, 1536, 6, 6
        x = _scaled_gelu(self.final(x)).mean((2, 3))        # b, 3072
        return self.fc(self.drop(x))                        # b, 1000


def nfnet(batch, device):
    return NFNet(), _images(batch, device, 192), _smooth_cls_loss, "sgd_momentum"


class EGCL(nn.Module):
    """An E(n)-equivariant graph convolutional layer (Satorras et al. 2021,
    as the reference's E_GCL with attention): for each edge (i receiving
    from j) the message m_ij = phi_e(h_i, h_j, |x_i - x_j|^2) (Linear 257
    -> 128, SiLU, Linear, SiLU), times a sigmoid gate of a Linear of it;
    the coordinates x_i + the mean over j of (x_i - x_j) phi_x(m_ij)
    (Linear, SiLU, Linear to 1 without bias, initialised at gain 0.001 as
    the reference), summed by index_add_ and divided by the in-degree; h_i
    + phi_h(h_i, sum_j m_ij) (Linear 256 -> 128, SiLU, Linear), the sum by
    index_add_. Coordinates stay fp32; without coords the layer leaves x
    as it is."""

    def __init__(self, d=128, coords=True):
        super().__init__()
        self.edge = nn.Sequential(nn.Linear(2 * d + 1, d), nn.SiLU(), nn.Linear(d, d), nn.SiLU())
        self.att = nn.Linear(d, 1)
        self.node = nn.Sequential(nn.Linear(2 * d, d), nn.SiLU(), nn.Linear(d, d))
        self.coord = None
        if coords:
            last = nn.Linear(d, 1, bias=False)
            nn.init.xavier_uniform_(last.weight, gain=0.001)
            self.coord = nn.Sequential(nn.Linear(d, d), nn.SiLU(), last)

    def forward(self, h, x, src, dst):                      # n, 128; n, 3; E; E
        diff = x.index_select(0, dst) - x.index_select(0, src)   # E, 3: x_i - x_j
        radial = (diff * diff).sum(1, keepdim=True)         # E, 1
        hi, hj = h.index_select(0, dst), h.index_select(0, src)
        m = self.edge(torch.cat([hi, hj, radial.to(hi.dtype)], dim=1))   # E, 257 -> 128
        m = m * torch.sigmoid(self.att(m))
        if self.coord is not None:
            trans = diff * self.coord(m).float()            # E, 3
            deg = src.shape[0] / x.shape[0]                 # every atom has the same in-degree
            x = x + trans.new_zeros(x.shape).index_add_(0, dst, trans) / deg
        agg = m.new_zeros(h.shape[0], m.shape[1]).index_add_(0, dst, m)   # n, 128
        return h + self.node(torch.cat([h, agg.to(h.dtype)], dim=1)).to(h.dtype), x


class EGNN(nn.Module):
    """EGNN on QM9-sized molecules as the reference's QM9 model: 15 atom
    features (5 types one-hot times the charge / 9 to the powers 0, 1, 2)
    through a Linear to 128, 7 EGCL over every ordered pair of a
    molecule's atoms, the coordinates updated by all but the last (whose
    new coordinates nothing would read: a parameter without a gradient
    would stall DDP's reduction); a node MLP (Linear, SiLU, Linear), the
    atoms summed per molecule by index_add_, a graph MLP 128 -> 128 -> 1."""

    def __init__(self, fin=15, d=128, layers=7):
        super().__init__()
        self.emb = nn.Linear(fin, d)
        self.layers = nn.ModuleList(EGCL(d, coords=i < layers - 1) for i in range(layers))
        self.node_dec = nn.Sequential(nn.Linear(d, d), nn.SiLU(), nn.Linear(d, d))
        self.graph_dec = nn.Sequential(nn.Linear(d, d), nn.SiLU(), nn.Linear(d, 1))

    def forward(self, inp):
        feats, pos, src, dst, mol = inp                     # M, 29, 15; M, 29, 3; E; E; n = 29 M
        n_mol = feats.shape[0]
        h, x = self.emb(feats.flatten(0, 1)), pos.reshape(-1, 3)   # n, 128; n, 3
        for layer in self.layers:
            h, x = layer(h, x, src, dst)
        h = self.node_dec(h)                                # n, 128
        g = h.new_zeros(n_mol, h.shape[1]).index_add_(0, mol, h)   # M, 128
        return self.graph_dec(g).squeeze(1)                 # M


def egnn(batch, device):
    """batch: molecules of 29 atoms (QM9's largest; no padding masks),
    every ordered pair of distinct atoms an edge (29 x 28 = 812 per
    molecule); one regression target each."""
    atoms = 29

    def make():
        src, dst, mol = _all_pairs(batch, atoms, device)
        types = torch.randint(0, 5, (batch, atoms), device=device)             # H, C, N, O, F
        charge = torch.tensor([1.0, 6.0, 7.0, 8.0, 9.0], device=device)[types] / 9.0
        powers = charge.unsqueeze(-1) ** torch.arange(3, device=device)        # M, 29, 3
        feats = (F.one_hot(types, 5).unsqueeze(-1) * powers.unsqueeze(2)).flatten(2)   # M, 29, 15
        return ((feats, 1.5 * torch.randn(batch, atoms, 3, device=device), src, dst, mol),
                torch.randn(batch, device=device))
    return EGNN(), make, _l1_loss, "adam"


class SENETLayer(nn.Module):
    """FiBiNET's squeeze-excitation over the fields: each field's embedding
    squeezed to its mean, an excitation MLP fields -> fields / 3 -> fields
    without biases, ReLU after both (as DeepCTR's), and each field's
    embedding scaled by its weight."""

    def __init__(self, fields, reduction=3):
        super().__init__()
        r = max(1, fields // reduction)
        self.excite = nn.Sequential(nn.Linear(fields, r, bias=False), nn.ReLU(), nn.Linear(r, fields, bias=False),
                                    nn.ReLU())

    def forward(self, e):                                   # b, 39, 16
        a = self.excite(e.mean(-1))                         # b, 39
        return e * a.unsqueeze(-1).to(e.dtype)


class BilinearInteraction(nn.Module):
    """FiBiNET's bilinear interaction, field-all type: one 16 x 16 W shared
    by all pairs, p_ij = (v_i W) * v_j for the 741 pairs i < j in
    itertools.combinations' order. v_i W depends on i alone, so it is made
    once per field (a Linear over b x 39 rows) and both sides of the pairs
    are gathered by index_select with fixed index tensors."""

    def __init__(self, fields, d):
        super().__init__()
        self.w = nn.Linear(d, d, bias=False)
        i, j = torch.triu_indices(fields, fields, 1)
        self.register_buffer("i", i, persistent=False)
        self.register_buffer("j", j, persistent=False)

    def forward(self, e):                                   # b, 39, 16
        vw = self.w(e)                                      # b, 39, 16
        return vw.index_select(1, self.i) * e.index_select(1, self.j).to(vw.dtype)   # b, 741, 16


class FiBiNET(nn.Module):
    """FiBiNET (Huang et al. 2019) on Criteo-shaped inputs laid out as
    DeepCTR's: 39 fields (the 13 numeric features bucketised, and 26
    categorical), each its own nn.Embedding of 100,000 x 16 (39 gathers,
    dense gradients; N(0, 1e-4) as DeepCTR's init_std); the SENETLayer
    over the embeddings; a BilinearInteraction on the embeddings and
    another (its own W) on the reweighted ones; both flattened and
    concatenated (2 x 741 x 16 = 23,712) into a DNN 400-400-400 with ReLU
    and a Linear to the logit. DeepCTR's linear part is left out."""

    def __init__(self, fields=39, vocab=100000, d=16, hidden=(400, 400, 400)):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(vocab, d) for _ in range(fields))
        for e in self.embs:
            nn.init.normal_(e.weight, std=1e-4)
        self.senet = SENETLayer(fields)
        self.bi, self.bi_senet = BilinearInteraction(fields, d), BilinearInteraction(fields, d)
        layers, c = [], 2 * (fields * (fields - 1) // 2) * d
        for h in hidden:
            layers += [nn.Linear(c, h), nn.ReLU()]
            c = h
        self.dnn = nn.Sequential(*layers, nn.Linear(c, 1))

    def forward(self, ids):                                 # b, 39
        e = torch.stack([emb(i) for emb, i in zip(self.embs, ids.unbind(1))], dim=1)   # b, 39, 16
        p, q = self.bi(e), self.bi_senet(self.senet(e))     # b, 741, 16 each
        return self.dnn(torch.cat([p, q.to(p.dtype)], dim=1).flatten(1)).squeeze(1)   # b, 23712 -> b


def fibinet(batch, device):
    """batch: impressions of 39 ids (13 bucketised numeric features and 26
    categorical) and a 0/1 label."""
    def make():
        return (torch.randint(0, 100000, (batch, 39), device=device),
                torch.randint(0, 2, (batch,), device=device).float())
    return FiBiNET(), make, _bce_loss, "adam"


# -- twenty-second round -------------------------------------------------------
# Models recorded after the twenty-first round: an HRNet-W18-shaped pose
# estimator at 256x192 (a stride-4 stem and a bottleneck stage, then 2, 3
# and 4 parallel branches of 18 to 144 channels at 1/4 .. 1/32 whose maps
# are exchanged after every module: strided 3x3 convolutions down, a 1x1
# convolution and nearest upsampling up, the sums at four resolutions), a
# GNMT-shaped translation model (nn.LSTM layers over whole sequences,
# the first encoder layer bidirectional, residual connections from the
# third layer, additive attention for all 50 x 50 query-key pairs at once
# as one b x 50 x 50 x 512 tanh, a 32,000-way classifier with label
# smoothing), Principal Neighbourhood Aggregation on ZINC-sized molecules
# (mean, min, max and std of the messages by index_add_ and scatter_reduce
# over the edges, degree scalers, 5 towers run one after another), a
# GPT-2-medium-width decoder (d 1,024, 16 heads, 8 layers over 512 tokens,
# fused causal attention where PyTorch has it, a tied 32,000-way head)
# and Wide & Deep (a 1,000,000 x 1 EmbeddingBag summing 20 hashed cross
# features beside 26 fields from one 1.3M x 32 table with offsets and an
# MLP 1,024-512-256; thousands of rows per batch).

class HRModule(nn.Module):
    """One HRNet module: per branch (widths w_0 > .. at 1/4, 1/8, ..) a
    run of basic residual blocks, then the exchange: output i the ReLU of
    the sum over the branches j of branch j brought to branch i's
    resolution and width: itself for j = i; a 1x1 Conv-BN and nearest
    upsampling by 2^(j - i) for j > i; i - j strided 3x3 Conv-BN for j < i
    (ReLU between them, the width kept until the last, which changes it to
    w_i). `outputs` of the branches are made (HRNet's last module of a
    pose network keeps only the finest)."""

    def __init__(self, widths, blocks=2, outputs=None):
        super().__init__()
        self.branches = nn.ModuleList(nn.Sequential(*[DilatedBasic(w, w) for _ in range(blocks)]) for w in widths)
        self.fuse = nn.ModuleList()
        for i in range(outputs or len(widths)):
            row = nn.ModuleList()
            for j, wj in enumerate(widths):
                if j == i:
                    row.append(nn.Identity())
                elif j > i:
                    row.append(nn.Sequential(nn.Conv2d(wj, widths[i], 1, bias=False), nn.BatchNorm2d(widths[i]),
                                             nn.Upsample(scale_factor=2 ** (j - i), mode="nearest")))
                else:
                    down = []
                    for k in range(i - j):
                        last = k == i - j - 1
                        cout = widths[i] if last else wj
                        down += [nn.Conv2d(wj, cout, 3, 2, 1, bias=False), nn.BatchNorm2d(cout)]
                        if not last:
                            down.append(nn.ReLU())
                    row.append(nn.Sequential(*down))
            self.fuse.append(row)

    def forward(self, xs):
        xs = [br(x) for br, x in zip(self.branches, xs)]
        return [F.relu(sum(f(x) for f, x in zip(row, xs))) for row in self.fuse]


class HRNet(nn.Module):
    """An HRNet-W18-shaped top-down pose estimator (Sun et al. 2019) at
    256x192 for COCO's 17 keypoints: a stem of two 3x3 stride-2 Conv-BN-ReLU
    of 64 to 64x48; 4 ResNet bottleneck blocks to 256 (stage 1); then
    stages of 2, 3 and 4 branches of widths 18, 36, 72, 144 at 1/4 .. 1/32
    (64x48 .. 8x6), one HRModule each with 2 basic blocks per branch (the
    reference's 1, 4 and 3 modules of 4 blocks each are cut so that a CPU
    step stays within seconds); between stages a transition: a 3x3
    Conv-BN-ReLU where a branch's width changes, and the new branch a 3x3
    stride-2 Conv-BN-ReLU of the coarsest one. The last module keeps only
    the 1/4 branch; a 1x1 Conv2d to the 17 heatmaps (b, 17, 64, 48)."""

    def __init__(self, joints=17, widths=(18, 36, 72, 144), blocks=2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 2, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.Conv2d(64, 64, 3, 2, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        self.layer1 = nn.Sequential(Bottleneck2d(64, 64), *[Bottleneck2d(256, 64) for _ in range(3)])
        self.transitions, self.stages = nn.ModuleList(), nn.ModuleList()
        prev = [256]
        for n in (2, 3, 4):
            ws = list(widths[:n])
            trans = nn.ModuleList()
            for i, w in enumerate(ws):
                if i < len(prev):
                    trans.append(nn.Identity() if prev[i] == w else nn.Sequential(
                        nn.Conv2d(prev[i], w, 3, 1, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU()))
                else:
                    trans.append(nn.Sequential(nn.Conv2d(prev[-1], w, 3, 2, 1, bias=False), nn.BatchNorm2d(w),
                                               nn.ReLU()))
            self.transitions.append(trans)
            self.stages.append(HRModule(ws, blocks, outputs=1 if n == len(widths) else None))
            prev = ws
        self.head = nn.Conv2d(widths[0], joints, 1)

    def forward(self, x):                                   # b, 3, 256, 192
        xs = [self.layer1(self.stem(x))]                    # b, 256, 64, 48
        for trans, stage in zip(self.transitions, self.stages):
            # a new branch comes from the coarsest map of the stage before
            xs = stage([t(xs[min(i, len(xs) - 1)]) for i, t in enumerate(trans)])
        return self.head(xs[0])                             # b, 17, 64, 48


def hrnet(batch, device):
    """batch: person crops of 256x192 and target heatmaps at 1/4 (64x48,
    Gaussians in [0, 1] in the reference; uniform noise here)."""
    def make():
        return (torch.randn(batch, 3, 256, 192, device=device),
                torch.rand(batch, 17, 64, 48, device=device))
    return HRNet(), make, _mse_loss, "adam"


class BahdanauAttention(nn.Module):
    """GNMT's normalised additive attention as the MLPerf reference's:
    score(q, k) = g v / |v| . tanh(W_q q + W_k k + b) (g a learnable
    scalar starting at 1 / sqrt(512), b a learnable bias), computed for
    every target step at once: the projected queries (b, t, 1, 512) and
    keys (b, 1, s, 512) broadcast to one b, t, s, 512 tensor through tanh
    and a matmul with the normalised v; softmax over the source steps in
    fp32, the context a bmm of the weights and the (unprojected) encoder
    outputs. No padding mask: every sentence fills the 50 steps."""

    def __init__(self, d, units=512):
        super().__init__()
        self.q, self.k = nn.Linear(d, units, bias=False), nn.Linear(d, units, bias=False)
        self.v = nn.Parameter(torch.empty(units).uniform_(-0.1, 0.1))
        self.g = nn.Parameter(torch.tensor(units ** -0.5))
        self.b = nn.Parameter(torch.zeros(units))

    def forward(self, query, keys):                         # b, t, 512; b, s, 512
        qk = self.q(query).unsqueeze(2) + self.k(keys).unsqueeze(1)   # b, t, s, 512
        # the bias in the projections' dtype: an fp32 bias would promote the whole b, t, s, 512 under autocast
        s = torch.tanh(qk + self.b.to(qk.dtype))
        v = self.v * (self.g / self.v.norm())
        p = (s @ v.to(s.dtype)).float().softmax(-1)         # b, t, s
        return torch.bmm(p.to(keys.dtype), keys)            # b, t, 512


class GNMT(nn.Module):
    """A GNMT-shaped translation model (Wu et al. 2016) laid out as the
    MLPerf reference, at width 512 rather than 1,024: one 32,000 x 512
    embedding shared by source and target; the encoder 4 nn.LSTM layers
    over the whole sequence, the first bidirectional (512 each way, 1,024
    out, as the reference's), the second 1,024 -> 512, the third and
    fourth with residual connections; the decoder (teacher forcing, from
    zero states) a first LSTM layer over the target embeddings whose
    outputs are the attention's queries, then 3 LSTM layers over
    [previous output, context] (1,024 -> 512), residual from the third;
    dropout 0.2 on the embeddings and before every later LSTM layer; an
    untied Linear to the vocabulary. Returns b, 50, 32000."""

    def __init__(self, vocab=32000, d=512, layers=4, drop=0.2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.enc = nn.ModuleList([nn.LSTM(d, d, batch_first=True, bidirectional=True),
                                  nn.LSTM(2 * d, d, batch_first=True)]
                                 + [nn.LSTM(d, d, batch_first=True) for _ in range(layers - 2)])
        self.dec_att = nn.LSTM(d, d, batch_first=True)
        self.attn = BahdanauAttention(d)
        self.dec = nn.ModuleList(nn.LSTM(2 * d, d, batch_first=True) for _ in range(layers - 1))
        self.cls = nn.Linear(d, vocab)
        self.drop = drop

    def forward(self, inp):
        src, tgt = inp                                      # b, 50; b, 50
        x = F.dropout(self.emb(src), self.drop, self.training)
        for i, rnn in enumerate(self.enc):
            y, _ = rnn(x if i == 0 else F.dropout(x, self.drop, self.training))
            x = y + x if i >= 2 else y                      # b, 50, 1024 after the first, 512 after
        y, _ = self.dec_att(F.dropout(self.emb(tgt), self.drop, self.training))   # b, 50, 512
        ctx = self.attn(y, x)                               # b, 50, 512
        for i, rnn in enumerate(self.dec):
            # the context in the LSTM output's dtype, so that the concatenation is of one type
            h, _ = rnn(torch.cat([F.dropout(y, self.drop, self.training), ctx.to(y.dtype)], dim=2))
            y = h + y if i >= 1 else h
        return self.cls(y)                                  # b, 50, 32000


def _smooth_lm_loss(out, y):
    """Token cross-entropy with label smoothing 0.1."""
    return _smooth_cls_loss(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def gnmt(batch, device):
    """batch: source sentences of 50 tokens, the target's 50 inputs
    (teacher forcing) and its 50 next tokens; ids from 1 (0 pads)."""
    def make():
        return ((torch.randint(1, 32000, (batch, 50), device=device),
                 torch.randint(1, 32000, (batch, 50), device=device)),
                torch.randint(1, 32000, (batch, 50), device=device))
    return GNMT(), make, _smooth_lm_loss, "adam"


class PNAConv(nn.Module):
    """A PNA layer as PyG's PNAConv with towers 5, divide_input False and
    one pre and one post layer: per tower a Linear of [h_i, h_j, e_ij]
    (the edge's bond embedding through a Linear to 80) to 80 per edge;
    over each node's in-edges the mean and the std (sums by index_add_ in
    fp32, std = sqrt(relu(E[m^2] - E[m]^2) + 1e-5)), the min and the max
    (scatter_reduce with amin and amax, include_self False: a node with no
    in-edges gets zeros, as PyG's); each of the 4 (320) times the scalers
    identity, log(d + 1) / delta and delta / log(d + 1) (d the in-degree
    at least 1, delta the mean log(d + 1) of the training graphs), 960,
    with h_i prepended (1,040), a Linear to 16 per tower; the towers run
    one after another in a Python loop as PyG's; their 5 x 16 concatenated
    and mixed by a Linear 80 -> 80."""

    def __init__(self, d, edge_dim, delta, towers=5):
        super().__init__()
        self.edge = nn.Linear(edge_dim, d)
        self.pre = nn.ModuleList(nn.Linear(3 * d, d) for _ in range(towers))
        self.post = nn.ModuleList(nn.Linear((4 * 3 + 1) * d, d // towers) for _ in range(towers))
        self.lin = nn.Linear(d, d)
        self.delta = delta

    def forward(self, h, e, src, dst):                      # n, 80; E, 50; E; E
        n = h.shape[0]
        z = torch.cat([h.index_select(0, dst), h.index_select(0, src), self.edge(e).to(h.dtype)], dim=1)   # E, 240
        deg = z.new_zeros(n, dtype=torch.float32).index_add_(0, dst, z.new_ones(dst.shape[0], dtype=torch.float32))
        logd = torch.log(deg.clamp(min=1) + 1).unsqueeze(1)  # n, 1
        idx = dst.unsqueeze(1)
        outs = []
        for pre, post in zip(self.pre, self.post):
            m = pre(z).float()                              # E, 80
            ix = idx.expand_as(m)
            cnt = deg.clamp(min=1).unsqueeze(1)
            mean = m.new_zeros(n, m.shape[1]).index_add_(0, dst, m) / cnt
            sq = m.new_zeros(n, m.shape[1]).index_add_(0, dst, m * m) / cnt
            std = torch.sqrt(F.relu(sq - mean * mean) + 1e-5)
            mn = m.new_zeros(n, m.shape[1]).scatter_reduce(0, ix, m, "amin", include_self=False)
            mx = m.new_zeros(n, m.shape[1]).scatter_reduce(0, ix, m, "amax", include_self=False)
            a = torch.cat([mean, mn, mx, std], dim=1)       # n, 320
            a = torch.cat([a, a * (logd / self.delta), a * (self.delta / logd)], dim=1)   # n, 960
            outs.append(post(torch.cat([h.float(), a], dim=1)))   # n, 1040 -> 16
        return self.lin(torch.cat(outs, dim=1))             # n, 80


class PNA(nn.Module):
    """Principal Neighbourhood Aggregation (Corso et al. 2020) on ZINC as
    PyG's example, at hidden 80 (divisible by the 5 towers) for its 75:
    atom types (21) and bond types (4) embedded to 80 and 50; 4 PNAConv,
    each followed by BatchNorm1d and ReLU and added to its input; the
    atoms averaged per molecule by index_add_ (the example sums them); an
    MLP 80 -> 40 -> 20 -> 1 with ReLU."""

    def __init__(self, atoms=21, bonds=4, d=80, edge_dim=50, layers=4, delta=1.0):
        super().__init__()
        self.atom, self.bond = nn.Embedding(atoms, d), nn.Embedding(bonds, edge_dim)
        self.convs = nn.ModuleList(PNAConv(d, edge_dim, delta) for _ in range(layers))
        self.norms = nn.ModuleList(nn.BatchNorm1d(d) for _ in range(layers))
        self.mlp = nn.Sequential(nn.Linear(d, d // 2), nn.ReLU(), nn.Linear(d // 2, d // 4), nn.ReLU(),
                                 nn.Linear(d // 4, 1))

    def forward(self, inp):
        types, bonds, src, dst, mol = inp                   # M, 23; E; E; E; n = 23 M
        n_mol = types.shape[0]
        h, e = self.atom(types.flatten()), self.bond(bonds)   # n, 80; E, 50
        for conv, norm in zip(self.convs, self.norms):
            h = h + F.relu(norm(conv(h, e, src, dst))).to(h.dtype)
        g = h.new_zeros(n_mol, h.shape[1]).index_add_(0, mol, h) / types.shape[1]   # M, 80
        return self.mlp(g).squeeze(1)                       # M


def pna(batch, device):
    """batch: molecules of 23 atoms (ZINC's mean) with 25 bonds each
    between random distinct atoms, both directions an edge (50 per
    molecule, ZINC's mean), molecules as disjoint graphs; one regression
    target (constrained solubility) each. delta is the mean log(d + 1) of
    such graphs' degrees, Binomial(25, 2 / 23)."""
    atoms, bonds = 23, 25
    p = 2 / atoms
    delta = sum(math.comb(bonds, k) * p ** k * (1 - p) ** (bonds - k) * math.log(k + 1) for k in range(bonds + 1))

    def make():
        u = torch.randint(0, atoms, (batch, bonds), device=device)
        v = (u + torch.randint(1, atoms, (batch, bonds), device=device)) % atoms
        off = (torch.arange(batch, device=device) * atoms).view(-1, 1)
        u, v = (u + off).flatten(), (v + off).flatten()
        kind = torch.randint(0, 4, (batch * bonds,), device=device)
        mol = torch.arange(batch, device=device).repeat_interleave(atoms)
        return ((torch.randint(0, 21, (batch, atoms), device=device), torch.cat([kind, kind]),
                 torch.cat([u, v]), torch.cat([v, u]), mol),
                torch.randn(batch, device=device))
    return PNA(delta=delta), make, _l1_loss, "adam"


class GPT2MediumBlock(nn.Module):
    """GPT-2's pre-LN block: one qkv Linear, causal attention by
    _causal_attention (SDPA where PyTorch has it), the output projection,
    LayerNorm, a GELU (tanh) MLP of 4 x the width; dropout 0.1 on both
    residual branches (attention dropout is left out: SDPA's would need a
    dropout_p that the written-out path does not take)."""

    def __init__(self, d, heads, drop=0.1):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.drop = nn.Dropout(drop)
        self.heads = heads

    def forward(self, x):                                   # b, 512, 1024
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads) \
            .permute(2, 0, 3, 1, 4)                         # b, 16, t, 64 each
        a = _causal_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.drop(self.proj(a))
        return x + self.drop(self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh")))


class GPT2Medium(nn.Module):
    """A GPT-2-medium-width decoder (d 1,024, 16 heads of 64, MLP 4,096)
    with 8 layers rather than 24 and a 32,000-token vocabulary rather than
    50,257: token and learned position embeddings (N(0, 0.02) and N(0,
    0.01) as GPT-2's), embedding dropout 0.1, 8 GPT2MediumBlock, a final
    LayerNorm and the LM head tied to the token embedding."""

    def __init__(self, vocab=32000, d=1024, layers=8, heads=16, seq=512):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.01)
        self.drop = nn.Dropout(0.1)
        self.blocks = nn.ModuleList(GPT2MediumBlock(d, heads) for _ in range(layers))
        self.ln = Fp32LayerNorm(d)

    def forward(self, idx):                                 # b, 512
        t = idx.shape[1]
        x = self.drop(self.tok(idx) + self.pos(torch.arange(t, device=idx.device)))   # b, 512, 1024
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln(x), self.tok.weight)        # b, 512, 32000


def gpt2medium(batch, device):
    return GPT2Medium(), _tokens(batch, 512, 32000, device), _lm_loss, "adamw"


class WideDeep(nn.Module):
    """Wide & Deep (Cheng et al. 2016) on Criteo-shaped inputs: the wide
    part a linear model over hashed cross features, its weights an
    EmbeddingBag of 1,000,000 x 1 summing each sample's 20 hashed ids,
    plus a bias; the deep part 26 categorical fields of 50,000 ids each
    from one 1.3M x 32 table (ids offset by 50,000 per field: one gather),
    flattened with the 13 dense features (845), an MLP 1,024-512-256 with
    ReLU and a Linear to the logit; the two logits summed."""

    def __init__(self, hashed=1000000, fields=26, vocab=50000, d=32, dense=13, hidden=(1024, 512, 256)):
        super().__init__()
        self.wide = nn.EmbeddingBag(hashed, 1, mode="sum")
        self.wide_bias = nn.Parameter(torch.zeros(1))
        self.emb = nn.Embedding(fields * vocab, d)          # 1.3M, 32
        self.register_buffer("offsets", torch.arange(fields) * vocab, persistent=False)   # 26
        layers, c = [], fields * d + dense
        for h in hidden:
            layers += [nn.Linear(c, h), nn.ReLU()]
            c = h
        self.deep = nn.Sequential(*layers, nn.Linear(c, 1))

    def forward(self, inp):
        cross, cat, dense = inp                             # b, 20; b, 26; b, 13
        wide = self.wide(cross).squeeze(1) + self.wide_bias  # b
        e = self.emb(cat + self.offsets).flatten(1)         # b, 832
        deep = self.deep(torch.cat([e, dense.to(e.dtype)], dim=1)).squeeze(1)   # b, 845 -> b
        return wide + deep.to(wide.dtype)


def wide_deep(batch, device):
    """batch: impressions of 20 hashed cross-feature ids, 26 categorical
    ids and 13 dense features, and a 0/1 label."""
    def make():
        return ((torch.randint(0, 1000000, (batch, 20), device=device),
                 torch.randint(0, 50000, (batch, 26), device=device),
                 torch.randn(batch, 13, device=device)),
                torch.randint(0, 2, (batch,), device=device).float())
    return WideDeep(), make, _bce_loss, "adam"


# -- twenty-third round --------------------------------------------------------
# Models recorded after the twenty-second round: a QuartzNet-5x5-shaped
# speech recogniser over 64 mel features (time-channel separable
# convolutions: depthwise Conv1d of kernels 33 to 87, one of them dilated,
# each followed by a pointwise 1x1 Conv1d and BatchNorm1d, 25 of them in 5
# residual blocks, CTC over 29 characters), a Graphormer-shaped graph
# transformer over 30-atom molecules (a learned attention bias per head
# gathered from an embedding by a shortest-path-distance matrix and added
# to matmul-softmax attention, a virtual graph token), an Instant-NGP-shaped
# neural field (a 16-level multiresolution hash encoding written out in
# integer tensor ops: floors, XORs of coordinates times large primes,
# gathers of 8 corners per level by index_select from one 16 x 2^19 x 2
# table and trilinear weights; tiny MLPs; volume rendering by cumsum and
# exp along 32-sample rays), a RAFT-shaped optical-flow model (an
# all-pairs 1,280 x 1,280 correlation volume by one bmm, a 2-level
# pyramid sampled in 9x9 windows by grid_sample at every one of 6
# iterations of a separable ConvGRU in a Python loop, bilinear upsampling
# of each iteration's flow) and SimCLR (a ResNet-18-shaped encoder over
# both views of 96x96 images in one batch, a 512-2,048-128 projection and
# the NT-Xent loss over the 2B x 2B cosine similarities).

class TCSConv(nn.Module):
    """QuartzNet's time-channel separable convolution: a depthwise Conv1d
    of kernel K (padding dilation x (K // 2), so that the length stays
    unless strided), a pointwise 1x1 Conv1d to the output width (both
    without bias), BatchNorm1d, ReLU unless `act` is False (the last of a
    block's repeats, whose ReLU comes after the residual)."""

    def __init__(self, cin, cout, k, stride=1, dilation=1, act=True):
        super().__init__()
        self.dw = nn.Conv1d(cin, cin, k, stride, dilation * (k // 2), dilation, groups=cin, bias=False)
        self.pw = nn.Conv1d(cin, cout, 1, bias=False)
        self.bn = nn.BatchNorm1d(cout)
        self.act = act

    def forward(self, x):                                   # b, cin, t
        y = self.bn(self.pw(self.dw(x)))                    # b, cout, t / stride
        return F.relu(y) if self.act else y


class QuartzBlock(nn.Module):
    """A QuartzNet block B_i: `repeats` TCSConv of kernel K (the first
    changing the width), the residual a 1x1 Conv1d and BatchNorm1d of the
    block's input added before the last ReLU. Dropout is 0 as in the
    reference's QuartzNet configurations."""

    def __init__(self, cin, cout, k, repeats=5):
        super().__init__()
        self.body = nn.Sequential(*[TCSConv(cin if i == 0 else cout, cout, k, act=i < repeats - 1)
                                    for i in range(repeats)])
        self.res = nn.Sequential(nn.Conv1d(cin, cout, 1, bias=False), nn.BatchNorm1d(cout))

    def forward(self, x):                                   # b, cin, t
        return F.relu(self.body(x) + self.res(x))           # b, cout, t


class QuartzNet(nn.Module):
    """A QuartzNet-5x5-shaped CTC speech recogniser (Kriman et al. 2020)
    over 64 mel features: the prologue C1 a separable convolution of
    kernel 33 and stride 2 to 256 (400 frames to 200); 5 blocks of 5
    repeats, widths 256, 256, 512, 512, 512 and kernels 33, 39, 51, 63,
    75; the epilogue C2 a separable convolution of kernel 87 and dilation
    2 (512), C3 a 1x1 Conv1d to 1,024 with BatchNorm1d and ReLU, C4 a 1x1
    Conv1d with bias to the 29 characters (blank 0, space, a-z, the
    apostrophe). Returns the log-probabilities b, 200, 29 in fp32."""

    def __init__(self, feats=64, chars=29, widths=(256, 256, 512, 512, 512), kernels=(33, 39, 51, 63, 75)):
        super().__init__()
        self.c1 = TCSConv(feats, widths[0], 33, stride=2)
        blocks, c = [], widths[0]
        for w, k in zip(widths, kernels):
            blocks.append(QuartzBlock(c, w, k))
            c = w
        self.blocks = nn.Sequential(*blocks)
        self.c2 = TCSConv(c, 512, 87, dilation=2)
        self.c3 = nn.Sequential(nn.Conv1d(512, 1024, 1, bias=False), nn.BatchNorm1d(1024), nn.ReLU())
        self.c4 = nn.Conv1d(1024, chars, 1)

    def forward(self, x):                                   # b, 64, 400
        x = self.blocks(self.c1(x))                         # b, 256, 200 -> b, 512, 200
        x = self.c4(self.c3(self.c2(x)))                    # b, 512 -> 1024 -> 29, 200
        return x.transpose(1, 2).float().log_softmax(-1)    # b, 200, 29


def quartznet(batch, device):
    """batch: 4 s utterances as 64 mel features x 400 frames of 10 ms, and
    transcripts of 60 characters from 1 .. 28 (0 is the blank); every
    input length is the 200 frames after the stride-2 prologue."""
    def make():
        return (torch.randn(batch, 64, 400, device=device),
                torch.randint(1, 29, (batch, 60), device=device))
    return QuartzNet(), make, _ctc_loss, "adam"


class GraphormerLayer(nn.Module):
    """A Graphormer encoder layer, pre-LN: multi-head self-attention whose
    logits (q scaled by 1 / sqrt(d_head), matmul, in fp32) get the graph's
    attention bias (b, heads, n, n) added before the softmax, attention
    dropout 0.1, an output Linear and its residual; LayerNorm, a GELU
    feed-forward with activation dropout 0.1, its residual. SDPA is not
    used: the bias is a float tensor that needs its gradient."""

    def __init__(self, d, heads, ffn, attn_drop=0.1, act_drop=0.1):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.heads, self.attn_drop, self.act_drop = heads, attn_drop, act_drop

    def forward(self, x, bias):                             # b, 31, 384; b, 16, 31, 31
        b, t, d = x.shape
        dh = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, dh).permute(2, 0, 3, 1, 4)   # b, 16, 31, 24 each
        s = ((q * dh ** -0.5) @ k.transpose(-1, -2)).float() + bias   # b, 16, 31, 31
        p = F.dropout(s.softmax(-1), self.attn_drop, self.training)
        a = (p.to(v.dtype) @ v).transpose(1, 2).reshape(b, t, d)   # b, 31, 384
        x = x + self.proj(a)
        h = F.dropout(F.gelu(self.fc1(self.ln2(x))), self.act_drop, self.training)   # b, 31, 1536
        return x + self.fc2(h)


class Graphormer(nn.Module):
    """A Graphormer-shaped molecular property regressor (Ying et al. 2021)
    at d 384 with 8 layers of 16 heads and FFN 1,536 (between the
    reference's slim and base sizes): each atom's 9 categorical features
    embedded from one 512 x 384 table and summed, plus a degree embedding
    (centrality encoding; in- and out-degree are one for undirected
    molecules); a graph token (virtual node) prepended; the spatial
    encoding an nn.Embedding(20, 16) of the shortest-path distances,
    permuted to b, 16, 30, 30 and padded for the graph token, whose row
    and column get a learned distance per head instead; the same bias
    for every layer. The multi-hop edge encoding is left out. A final
    LayerNorm; the graph token through Linear, GELU, LayerNorm and a
    Linear to one target (b)."""

    def __init__(self, vocab=512, d=384, layers=8, heads=16, ffn=1536, max_dist=20, max_deg=64, atoms=30):
        super().__init__()
        self.atom, self.degree = nn.Embedding(vocab, d, padding_idx=0), nn.Embedding(max_deg, d)
        self.graph_token = nn.Embedding(1, d)
        self.spatial, self.virtual = nn.Embedding(max_dist, heads), nn.Embedding(1, heads)
        border = torch.zeros(atoms + 1, atoms + 1, dtype=torch.bool)
        border[0, :] = True
        border[:, 0] = True
        self.register_buffer("border", border, persistent=False)   # 31, 31: the graph token's row and column
        self.layers = nn.ModuleList(GraphormerLayer(d, heads, ffn) for _ in range(layers))
        self.ln = Fp32LayerNorm(d)
        self.head = nn.Sequential(nn.Linear(d, d), nn.GELU(), Fp32LayerNorm(d), nn.Linear(d, 1))

    def forward(self, inp):
        feats, deg, spd = inp                               # b, 30, 9; b, 30; b, 30, 30
        b = feats.shape[0]
        x = self.atom(feats).sum(2) + self.degree(deg)      # b, 30, 384
        x = torch.cat([self.graph_token.weight.expand(b, 1, -1), x], dim=1)   # b, 31, 384
        bias = F.pad(self.spatial(spd).permute(0, 3, 1, 2), (1, 0, 1, 0))   # b, 16, 30, 30 -> b, 16, 31, 31
        bias = bias + self.virtual.weight.view(1, -1, 1, 1) * self.border
        for layer in self.layers:
            x = layer(x, bias)
        return self.head(self.ln(x)[:, 0]).squeeze(1)      # b


def graphormer(batch, device):
    """batch: molecules of 30 atoms (no padding), 9 feature ids per atom
    from 1 .. 511, a symmetric random shortest-path-distance matrix of 1 ..
    19 off the diagonal (0 on it), each atom's degree its count of
    distance-1 neighbours; one regression target (the HOMO-LUMO gap)."""
    atoms = 30

    def make():
        spd = torch.randint(1, 20, (batch, atoms, atoms), device=device).triu(1)
        spd = spd + spd.transpose(1, 2)                     # b, 30, 30: symmetric, 0 on the diagonal
        deg = (spd == 1).sum(-1)                            # b, 30
        return ((torch.randint(1, 512, (batch, atoms, 9), device=device), deg, spd),
                torch.randn(batch, device=device))
    return Graphormer(atoms=atoms), make, _l1_loss, "adamw"


class HashGrid(nn.Module):
    """Instant-NGP's multiresolution hash encoding (Mueller et al. 2022):
    16 levels of 2 features, one table of 2^19 entries per level (one
    parameter 16 x 2^19 x 2, U(-1e-4, 1e-4)), resolutions floor(16 x
    1.5^l) (16 .. 7,006). Per level a point's grid position x N_l, its
    floor and fraction; the 8 corners' integer coordinates (int64); their
    index directly (x + (N + 1) (y + (N + 1) z)) on the coarse levels whose
    (N + 1)^3 vertices fit in the table (the first four), by the spatial
    hash (x XOR 2,654,435,761 y XOR 805,459,861 z) mod 2^19 on the rest
    (the same low 19 bits as the reference's wrapping uint32 products),
    both computed and chosen by torch.where; offset by level into the
    flattened table, gathered by index_select (b, 16, 8, 2) and weighted
    trilinearly. Returns b, 32 in fp32."""

    def __init__(self, levels=16, feats=2, log2_size=19, base=16, scale=1.5):
        super().__init__()
        self.size = 2 ** log2_size
        self.table = nn.Parameter(torch.empty(levels, self.size, feats).uniform_(-1e-4, 1e-4))
        res = [math.floor(base * scale ** i) for i in range(levels)]
        self.register_buffer("res", torch.tensor(res, dtype=torch.float32).view(1, -1, 1), persistent=False)
        self.register_buffer("side", torch.tensor(res).add(1).view(1, -1, 1), persistent=False)   # int64
        self.register_buffer("dense", torch.tensor([(r + 1) ** 3 <= self.size for r in res]).view(1, -1, 1),
                             persistent=False)
        self.register_buffer("offset", (torch.arange(levels) * self.size).view(1, -1, 1), persistent=False)
        corners = torch.tensor([[(c >> i) & 1 for i in range(3)] for c in range(8)])   # 8, 3 (x, y, z)
        self.register_buffer("corners", corners, persistent=False)

    def forward(self, x):                                   # n, 3 in [0, 1)
        pos = x.float().clamp(0.0, 1.0 - 1e-6).unsqueeze(1) * self.res   # n, 16, 3
        p0 = pos.floor()
        w = (pos - p0).unsqueeze(2)                         # n, 16, 1, 3
        cx, cy, cz = (p0.long().unsqueeze(2) + self.corners).unbind(-1)   # n, 16, 8 each
        hashed = torch.bitwise_xor(torch.bitwise_xor(cx, cy * 2654435761), cz * 805459861) % self.size
        direct = cx + self.side * (cy + self.side * cz)
        idx = torch.where(self.dense, direct, hashed) + self.offset   # n, 16, 8
        f = self.table.flatten(0, 1).index_select(0, idx.flatten()).view(*idx.shape, -1)   # n, 16, 8, 2
        wc = torch.where(self.corners.bool(), w, 1 - w).prod(-1)   # n, 16, 8
        return (f * wc.unsqueeze(-1)).sum(2).flatten(1)     # n, 32


def _sh4(d):
    """The 16 real spherical harmonics of degree < 4 of unit directions
    (n, 3), as tiny-cuda-nn's SphericalHarmonics encoding."""
    x, y, z = d.unbind(-1)
    xx, yy, zz = x * x, y * y, z * z
    return torch.stack([
        torch.full_like(x, 0.28209479177387814),
        -0.48860251190291987 * y, 0.48860251190291987 * z, -0.48860251190291987 * x,
        1.0925484305920792 * x * y, -1.0925484305920792 * y * z, 0.94617469575755997 * zz - 0.31539156525251999,
        -1.0925484305920792 * x * z, 0.54627421529603959 * (xx - yy),
        0.59004358992664352 * y * (-3 * xx + yy), 2.8906114426405538 * x * y * z,
        0.45704579946446572 * y * (1 - 5 * zz), 0.3731763325901154 * z * (5 * zz - 3),
        0.45704579946446572 * x * (1 - 5 * zz), 1.4453057213202769 * z * (xx - yy),
        0.59004358992664352 * x * (-xx + 3 * yy)], dim=-1)   # n, 16


class InstantNGP(nn.Module):
    """An Instant-NGP-shaped radiance field: the HashGrid encoding (32) of
    each sample, a density MLP 32 -> 64 -> 16 (ReLU, no biases, as
    tiny-cuda-nn's fully fused MLPs) whose first output is the log
    density (exp, clamped at 15 for the truncated exp); the 16 outputs
    and the ray direction's 16 spherical harmonics into a colour MLP 32
    -> 64 -> 64 -> 3, sigmoid. Volume rendering along each ray of S
    equally spaced samples (step `length` / (S - 1)): transmittance
    exp(-exclusive cumsum of sigma dt), weights (1 - exp(-sigma dt)) x
    transmittance, the colours summed. Returns b / S, 3."""

    def __init__(self, length=0.25):
        super().__init__()
        self.grid = HashGrid()
        self.density = nn.Sequential(nn.Linear(32, 64, bias=False), nn.ReLU(), nn.Linear(64, 16, bias=False))
        self.colour = nn.Sequential(nn.Linear(32, 64, bias=False), nn.ReLU(), nn.Linear(64, 64, bias=False),
                                    nn.ReLU(), nn.Linear(64, 3, bias=False))
        self.length = length

    def forward(self, inp):
        pts, dirs = inp                                     # r, S, 3; r, 3
        r, s, _ = pts.shape
        geo = self.density(self.grid(pts.reshape(-1, 3)))   # r S, 16
        sh = _sh4(dirs).unsqueeze(1).expand(r, s, 16).reshape(-1, 16)   # r S, 16
        rgb = torch.sigmoid(self.colour(torch.cat([geo, sh.to(geo.dtype)], dim=1))).float().reshape(r, s, 3)
        tau = torch.exp(geo[:, 0].float().clamp(max=15.0)).reshape(r, s) * (self.length / (s - 1))   # sigma dt
        trans = torch.exp(tau - torch.cumsum(tau, dim=1))   # r, S: exp(-sum of the samples before)
        weights = (1 - torch.exp(-tau)) * trans
        return (weights.unsqueeze(-1) * rgb).sum(1)        # r, 3


def instantngp(batch, device):
    """batch: sample points, 32 per ray (batch / 32 rays): rays from random
    origins in [0.3, 0.7]^3 along random unit directions, samples every
    0.25 / 31 (all within [0.05, 0.95]^3); a random colour per ray."""
    s = 32
    rays = batch // s

    def make():
        o = 0.3 + 0.4 * torch.rand(rays, 1, 3, device=device)
        d = F.normalize(torch.randn(rays, 3, device=device), dim=1)
        t = torch.linspace(0.0, 0.25, s, device=device).view(1, s, 1)
        return (o + t * d.unsqueeze(1), d), torch.rand(rays, 3, device=device)
    return InstantNGP(), make, _mse_loss, "adam"


class RAFTBottleneck(nn.Module):
    """RAFT's small-encoder bottleneck block: 1x1 to a quarter of the
    width, 3x3 (maybe strided), 1x1 to the width, each with a norm and
    ReLU; a strided 1x1 conv and norm on the shortcut where the shape
    changes; ReLU of the sum."""

    def __init__(self, cin, planes, stride, norm):
        super().__init__()
        q = planes // 4
        self.c1, self.c2, self.c3 = nn.Conv2d(cin, q, 1), nn.Conv2d(q, q, 3, stride, 1), nn.Conv2d(q, planes, 1)
        self.n1, self.n2, self.n3 = norm(q), norm(q), norm(planes)
        self.short = None
        if stride != 1 or cin != planes:
            self.short = nn.Sequential(nn.Conv2d(cin, planes, 1, stride), norm(planes))

    def forward(self, x):
        y = F.relu(self.n1(self.c1(x)))
        y = F.relu(self.n2(self.c2(y)))
        y = F.relu(self.n3(self.c3(y)))
        return F.relu(y + (x if self.short is None else self.short(x)))


class RAFTEncoder(nn.Module):
    """RAFT-small's encoder: a 7x7 stride-2 Conv2d to 32, norm, ReLU; two
    RAFTBottleneck each of 32, 64 and 96 channels, the last two stages
    strided (1/8); a 1x1 Conv2d to `cout`. `norm` is InstanceNorm2d for
    the feature encoder, none for the context encoder."""

    def __init__(self, cout, norm):
        super().__init__()
        self.conv1, self.n1 = nn.Conv2d(3, 32, 7, 2, 3), norm(32)
        layers, c = [], 32
        for planes, stride in ((32, 1), (64, 2), (96, 2)):
            layers += [RAFTBottleneck(c, planes, stride, norm), RAFTBottleneck(planes, planes, 1, norm)]
            c = planes
        self.layers = nn.Sequential(*layers)
        self.conv2 = nn.Conv2d(c, cout, 1)

    def forward(self, x):                                   # n, 3, 256, 320
        return self.conv2(self.layers(F.relu(self.n1(self.conv1(x)))))   # n, cout, 32, 40


class SepConvGRU(nn.Module):
    """RAFT's separable ConvGRU: a GRU update with 1x5 convolutions of
    [h, x] for the update and reset gates and the candidate, then another
    with 5x1 ones."""

    def __init__(self, hidden, cin):
        super().__init__()
        self.convs = nn.ModuleList(
            nn.ModuleList(nn.Conv2d(hidden + cin, hidden, k, padding=p) for _ in range(3))
            for k, p in (((1, 5), (0, 2)), ((5, 1), (2, 0))))

    def forward(self, h, x):                                # b, 96, 32, 40; b, 146, 32, 40
        for convz, convr, convq in self.convs:
            hx = torch.cat([h, x], dim=1)                   # b, 242, 32, 40
            z, r = torch.sigmoid(convz(hx)), torch.sigmoid(convr(hx))
            q = torch.tanh(convq(torch.cat([r * h, x], dim=1)))
            h = (1 - z) * h + z * q
        return h


class RAFT(nn.Module):
    """A RAFT-shaped optical-flow model (Teed and Deng 2020), its small
    variant's encoders and motion encoder with the large one's separable
    ConvGRU, at 256x320: the feature encoder (128, InstanceNorm2d) on both
    images in one batch and the context encoder (96 hidden + 64 context,
    no norm) on the first, at 1/8 (32x40); the all-pairs correlation
    volume one bmm of 1,280 x 128 by 128 x 1,280 per pair over sqrt(128),
    in fp32, and a 2-level pyramid by avg_pool2d; 6 iterations: from the
    detached coordinates, a 9x9 window per level sampled by grid_sample
    (align_corners, 162 values), the motion encoder (1x1 to 96 on the
    correlations, 7x7 to 64 and 3x3 to 32 on the flow, 3x3 to 80, the flow
    appended: 82), the SepConvGRU of 96 over [motion, context], the flow
    head (3x3 to 128, ReLU, 3x3 to 2) added to the coordinates, and the
    flow upsampled x8 bilinearly (times 8). Returns the flows stacked, b,
    6, 2, 256, 320."""

    def __init__(self, iters=6, hidden=96, ctx=64, levels=2, radius=4):
        super().__init__()
        self.fnet = RAFTEncoder(128, nn.InstanceNorm2d)
        self.cnet = RAFTEncoder(hidden + ctx, lambda c: nn.Identity())
        cor = levels * (2 * radius + 1) ** 2                # 162
        self.convc1 = nn.Conv2d(cor, 96, 1)
        self.convf1, self.convf2 = nn.Conv2d(2, 64, 7, padding=3), nn.Conv2d(64, 32, 3, padding=1)
        self.conv = nn.Conv2d(128, 80, 3, padding=1)
        self.gru = SepConvGRU(hidden, 82 + ctx)
        self.head = nn.Sequential(nn.Conv2d(hidden, 128, 3, padding=1), nn.ReLU(), nn.Conv2d(128, 2, 3, padding=1))
        d = torch.linspace(-radius, radius, 2 * radius + 1)
        dy, dx = torch.meshgrid(d, d, indexing="ij")
        self.register_buffer("delta", torch.stack([dx, dy], dim=-1).unsqueeze(0), persistent=False)   # 1, 9, 9, 2
        self.iters, self.levels, self.hidden = iters, levels, hidden

    def lookup(self, pyramid, coords):                      # [b h w, 1, h / 2^i, w / 2^i]; b, 2, h, w
        b, _, h, w = coords.shape
        c = coords.permute(0, 2, 3, 1).reshape(b * h * w, 1, 1, 2)
        out = []
        for i, corr in enumerate(pyramid):
            hi, wi = corr.shape[-2:]
            g = c / 2 ** i + self.delta                     # b h w, 9, 9, 2 (x, y) in the level's pixels
            g = torch.stack([g[..., 0] * (2 / (wi - 1)) - 1, g[..., 1] * (2 / (hi - 1)) - 1], dim=-1)
            out.append(F.grid_sample(corr, g, align_corners=True).view(b, h, w, -1))   # b, h, w, 81
        return torch.cat(out, dim=-1).permute(0, 3, 1, 2)  # b, 162, h, w

    def forward(self, x):                                   # b, 2, 3, 256, 320
        b = x.shape[0]
        f = self.fnet(x.flatten(0, 1))                      # 2b, 128, 32, 40 (the pairs' images adjacent)
        _, c, h, w = f.shape
        f = f.view(b, 2, c, h * w)
        corr = torch.bmm(f[:, 0].transpose(1, 2), f[:, 1]).float() / math.sqrt(c)   # b, 1280, 1280
        pyramid = [corr.view(b * h * w, 1, h, w)]
        for _ in range(self.levels - 1):
            pyramid.append(F.avg_pool2d(pyramid[-1], 2))   # b h w, 1, 16, 20
        cn = self.cnet(x[:, 0])                             # b, 160, 32, 40
        net, inp = torch.tanh(cn[:, :self.hidden]), F.relu(cn[:, self.hidden:])
        ys, xs = torch.meshgrid(torch.arange(h, device=x.device, dtype=torch.float32),
                                torch.arange(w, device=x.device, dtype=torch.float32), indexing="ij")
        coords0 = torch.stack([xs, ys]).unsqueeze(0).expand(b, 2, h, w)
        coords1, flows = coords0, []
        for _ in range(self.iters):
            coords1 = coords1.detach()
            corr_feat = self.lookup(pyramid, coords1)       # b, 162, 32, 40 (fp32)
            flow = coords1 - coords0                        # b, 2, 32, 40
            cf = F.relu(self.convc1(corr_feat))             # b, 96, 32, 40
            ff = F.relu(self.convf2(F.relu(self.convf1(flow))))   # b, 32, 32, 40
            m = F.relu(self.conv(torch.cat([cf, ff], dim=1)))     # b, 80, 32, 40
            m = torch.cat([m, flow.to(m.dtype), inp.to(m.dtype)], dim=1)   # b, 146, 32, 40
            net = self.gru(net.to(m.dtype), m)              # b, 96, 32, 40
            coords1 = coords1 + self.head(net).float()
            flows.append(8 * F.interpolate(coords1 - coords0, scale_factor=8, mode="bilinear",
                                           align_corners=True))   # b, 2, 256, 320
        return torch.stack(flows, dim=1)                    # b, 6, 2, 256, 320


def _sequence_l1_loss(out, y, gamma=0.8):
    """RAFT's sequence loss: the L1 error of each iteration's flow (b, N,
    2, H, W) against the target (b, 2, H, W), weighted by gamma^(N - 1 -
    i) for iteration i (the last 1), summed."""
    n = out.shape[1]
    w = gamma ** torch.arange(n - 1, -1, -1, device=out.device, dtype=out.dtype)   # N
    return ((out - y.unsqueeze(1)).abs().mean((0, 2, 3, 4)) * w).sum()


def raft(batch, device):
    """batch: pairs of 256x320 RGB images (b, 2, 3, 256, 320) and a random
    flow target of pixels at full resolution."""
    def make():
        return (torch.randn(batch, 2, 3, 256, 320, device=device),
                8 * torch.randn(batch, 2, 256, 320, device=device))
    return RAFT(), make, _sequence_l1_loss, "adamw"


class SimCLR(nn.Module):
    """SimCLR (Chen et al. 2020) at 96x96 (STL-10's size): a ResNet-18-shaped
    encoder (7x7 stride-2 stem and max-pool to 24x24, two DilatedBasic
    each of 64, 128, 256 and 512 channels, the last three stages strided:
    3x3, BatchNorm2d), the spatial mean (512), a projection head Linear
    512 -> 2,048 without bias, BatchNorm1d, ReLU, Linear to 128. The two
    views of each image (b, 2, 3, 96, 96) are laid out as one batch of 2b,
    the first views then the second (so the positive of row i is row i +
    b, and of row i + b row i). Returns the projections 2b, 128."""

    def __init__(self, hidden=2048, out=128):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))   # 2b, 64, 24, 24
        chans = (64, 64, 128, 256, 512)
        self.backbone = nn.Sequential(*[nn.Sequential(DilatedBasic(a, c, 1 if i == 0 else 2), DilatedBasic(c, c))
                                        for i, (a, c) in enumerate(zip(chans, chans[1:]))])
        self.proj = nn.Sequential(nn.Linear(chans[-1], hidden, bias=False), nn.BatchNorm1d(hidden), nn.ReLU(),
                                  nn.Linear(hidden, out))

    def forward(self, x):                                   # b, 2, 3, 96, 96
        v = x.transpose(0, 1).flatten(0, 1)                 # 2b, 3, 96, 96: first views, then second views
        h = self.backbone(self.stem(v)).mean((2, 3))        # 2b, 512 (from 2b, 512, 3, 3)
        return self.proj(h)                                 # 2b, 128


def _nt_xent_loss(out, y, temperature=0.5):
    """NT-Xent: the projections normalised, their 2b x 2b cosine
    similarities over the temperature, each row's own entry masked to
    -inf, cross-entropy against the row of its positive (y)."""
    z = F.normalize(out, dim=1)
    s = (z @ z.t()) / temperature                           # 2b, 2b
    eye = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)
    return F.cross_entropy(s.masked_fill(eye, float("-inf")), y)


def simclr(batch, device):
    """batch: images, each as two augmented 96x96 views (b, 2, 3, 96, 96;
    random values in place of the crops, flips and colour jitter), and
    the positives' rows: i + b for i < b, i - b after."""
    def make():
        return (torch.randn(batch, 2, 3, 96, 96, device=device),
                torch.cat([torch.arange(batch, 2 * batch, device=device), torch.arange(batch, device=device)]))
    return SimCLR(), make, _nt_xent_loss, "sgd_momentum"


# -- twenty-fourth round -------------------------------------------------------
# Models recorded after the twenty-third round: a masked autoencoder (MAE)
# over 224x224 images (16x16 patches by a strided Conv2d, 75% of them
# dropped per sample by the argsort of uniform noise and a gather, a
# ViT-shaped encoder of width 512 over the 49 kept patches alone, a
# narrower decoder over all 196 with mask tokens put back in place by a
# gather with the inverse permutation, a per-patch normalised pixel MSE on
# the dropped patches), a Glow-shaped normalizing flow on 32x32 images
# (three levels of 8 steps of ActNorm, an invertible 1x1 convolution whose
# log-determinant is a slogdet of its 12- to 48-wide weight, and an affine
# coupling whose network ends in a zero-initialised convolution; squeezes
# and splits between the levels, the loss in bits per dimension), a
# Performer-shaped language model over 2,048 tokens (FAVOR+ causal linear
# attention written out: positive random features by exp, the prefix sums
# of the key-feature x value outer products by one cumsum over a b x 8 x
# 2,048 x 256 x 64 tensor), a Point Transformer-shaped point-cloud
# classifier (k nearest neighbours by cdist and topk, gathers of 16
# neighbours per point, vector attention whose per-channel weights come
# from an MLP and a softmax over the neighbours, strided downsampling with
# max-pooled neighbourhoods) and BiDAF (word embeddings beside a character
# CNN, a highway network, nn.LSTM layers over 256 context and 32 query
# words, the trilinear 256 x 32 similarity and attention in both
# directions, two cross-entropies over the context positions).

class MAEBlock(nn.Module):
    """A pre-LN ViT block as MAE's: LayerNorm, one qkv Linear, attention
    by _attention (SDPA where PyTorch has it), the output projection and
    its residual; LayerNorm, a GELU MLP of 4 x the width, its residual;
    no dropout."""

    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x):                                   # b, t, d
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        x = x + self.proj(_attention(q, k, v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class MAE(nn.Module):
    """A masked autoencoder (He et al. 2021) in pretraining, ViT-shaped at
    width 512 with 8 encoder layers: 16x16 patches of 224x224 images by a
    strided Conv2d (196 tokens of 512) plus learned positions (N(0,
    0.02); MAE's are fixed sine-cosine ones); per sample, uniform noise
    argsorted to a random permutation whose first 49 patches are kept (a
    gather) and the other 147 masked; a class token prepended; 8 MAEBlock
    of 8 heads (MLP 2,048) and a LayerNorm; the decoder a Linear to 256,
    the 147 mask tokens (one learned vector) appended and the sequence
    put back in patch order by a gather with the argsort of the
    permutation, learned decoder positions, 4 MAEBlock of 8 heads,
    LayerNorm and a Linear to the 16 x 16 x 3 pixels of each patch. The
    loss is the model's own, as MAE's with norm_pix_loss: each patch's
    pixels normalised by their mean and variance, the squared error
    averaged over a patch's pixels, then over the masked patches of the
    sample, in fp32. Returns the per-sample losses (b)."""

    def __init__(self, size=224, patch=16, d=512, layers=8, heads=8, dd=256, dlayers=4, dheads=8, ratio=0.75):
        super().__init__()
        n = (size // patch) ** 2                            # 196
        self.embed = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(0.02 * torch.randn(1, 1, d))
        self.pos = nn.Parameter(0.02 * torch.randn(1, n + 1, d))
        self.blocks = nn.ModuleList(MAEBlock(d, heads) for _ in range(layers))
        self.norm = Fp32LayerNorm(d)
        self.dec_embed = nn.Linear(d, dd)
        self.mask_token = nn.Parameter(0.02 * torch.randn(1, 1, dd))
        self.dec_pos = nn.Parameter(0.02 * torch.randn(1, n + 1, dd))
        self.dec_blocks = nn.ModuleList(MAEBlock(dd, dheads) for _ in range(dlayers))
        self.dec_norm = Fp32LayerNorm(dd)
        self.pred = nn.Linear(dd, patch * patch * 3)
        self.patch, self.keep = patch, int(n * (1 - ratio))   # 49

    def forward(self, x):                                   # b, 3, 224, 224
        b, p = x.shape[0], self.patch
        t = self.embed(x).flatten(2).transpose(1, 2) + self.pos[:, 1:]   # b, 196, 512
        n, d = t.shape[1], t.shape[2]
        shuffle = torch.rand(b, n, device=x.device).argsort(1)   # b, 196: a random permutation per sample
        restore = shuffle.argsort(1)                        # where each patch went
        t = t.gather(1, shuffle[:, :self.keep].unsqueeze(2).expand(-1, -1, d))   # b, 49, 512
        t = torch.cat([(self.cls + self.pos[:, :1]).expand(b, -1, -1).to(t.dtype), t], dim=1)   # b, 50, 512
        for blk in self.blocks:
            t = blk(t)
        t = self.dec_embed(self.norm(t))                    # b, 50, 256
        dd = t.shape[2]
        m = torch.cat([t[:, 1:], self.mask_token.to(t.dtype).expand(b, n - self.keep, -1)], dim=1)   # b, 196, 256
        m = m.gather(1, restore.unsqueeze(2).expand(-1, -1, dd))   # back in patch order
        t = torch.cat([t[:, :1], m], dim=1) + self.dec_pos   # b, 197, 256
        for blk in self.dec_blocks:
            t = blk(t)
        pred = self.pred(self.dec_norm(t))[:, 1:].float()   # b, 196, 768
        gh, gw = x.shape[2] // p, x.shape[3] // p
        target = x.float().view(b, 3, gh, p, gw, p).permute(0, 2, 4, 3, 5, 1).reshape(b, n, p * p * 3)
        target = (target - target.mean(-1, keepdim=True)) / (target.var(-1, keepdim=True) + 1e-6).sqrt()
        mask = (restore >= self.keep).float()               # b, 196: 1 on the masked patches
        err = ((pred - target) ** 2).mean(-1)               # b, 196
        return (err * mask).sum(1) / mask.sum(1)            # b


def _own_loss(out, y):
    """The mean over the batch of the per-sample losses that the model
    computes itself (MAE's needs the mask it draws in its forward); y is
    not used."""
    return out.mean()


def mae(batch, device):
    """batch: 224x224 images; the targets are the images' own pixels, so
    the second tensor is a placeholder."""
    def make():
        return torch.randn(batch, 3, 224, 224, device=device), torch.zeros(batch, device=device)
    return MAE(), make, _own_loss, "adamw"


class ActNorm(nn.Module):
    """Glow's ActNorm: a per-channel bias and log-scale, y = (x + bias)
    exp(logs), log-determinant H W sum(logs). Both start at zero (Glow's
    data-dependent initialisation from the first batch is left out)."""

    def __init__(self, c):
        super().__init__()
        self.bias, self.logs = nn.Parameter(torch.zeros(1, c, 1, 1)), nn.Parameter(torch.zeros(1, c, 1, 1))

    def forward(self, x, logdet):
        return (x + self.bias) * torch.exp(self.logs), logdet + x.shape[2] * x.shape[3] * self.logs.sum()


class InvConv1x1(nn.Module):
    """Glow's invertible 1x1 convolution (the unfactorised form): a c x c
    weight from the QR of a Gaussian matrix, applied by conv2d (the output
    brought back to fp32); log-determinant H W log|det W| by slogdet of
    the weight in fp32."""

    def __init__(self, c):
        super().__init__()
        self.weight = nn.Parameter(torch.linalg.qr(torch.randn(c, c))[0])

    def forward(self, x, logdet):
        c = self.weight.shape[0]
        ld = torch.slogdet(self.weight.float())[1] * (x.shape[2] * x.shape[3])
        return F.conv2d(x, self.weight.view(c, c, 1, 1)).float(), logdet + ld


class AffineCoupling(nn.Module):
    """Glow's affine coupling: the first half of the channels through a
    network (3x3 Conv2d to 256, ReLU, 1x1 Conv2d 256, ReLU, a zero-
    initialised 3x3 Conv2d to c) whose interleaved outputs are a shift and
    a scale sigmoid(h + 2) for the second half: (x_b + shift) scale;
    log-determinant the sum of log(scale), in fp32."""

    def __init__(self, c, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(c // 2, hidden, 3, padding=1), nn.ReLU(), nn.Conv2d(hidden, hidden, 1),
                                 nn.ReLU(), nn.Conv2d(hidden, c, 3, padding=1))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x, logdet):
        xa, xb = x.chunk(2, dim=1)
        h = self.net(xa).float()
        shift, scale = h[:, 0::2], torch.sigmoid(h[:, 1::2] + 2.0)
        return torch.cat([xa, (xb + shift) * scale], dim=1), logdet + torch.log(scale).sum((1, 2, 3))


def _squeeze2d(x):
    """Glow's squeeze: each 2x2 block of pixels to channels, b, 4c, h / 2, w / 2."""
    b, c, h, w = x.shape
    return x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4).reshape(b, 4 * c, h // 2, w // 2)


def _std_normal_logp(z):
    """The log-density of b, ... values under a standard normal, summed per sample."""
    return -0.5 * (z * z + math.log(2 * math.pi)).flatten(1).sum(1)


class Glow(nn.Module):
    """A Glow-shaped normalizing flow (Kingma and Dhariwal 2018) on 3 x
    32x32 images, with couplings of 256 (the reference's CIFAR-10 model
    has 512 and 32 steps per level): 3 levels, each a squeeze then 8 steps
    of ActNorm, InvConv1x1 and AffineCoupling (12 x 16x16, 24 x 8x8, 48 x
    4x4); after the first two levels half of the channels split off to a
    standard-normal prior (Glow's is learned). The flow state is kept in
    fp32. Returns each sample's negative log-likelihood in bits per
    dimension of 8-bit data: -(log p(z) + sum of log-determinants - D
    log 256) / (D log 2), D = 3,072 (b)."""

    def __init__(self, c=3, levels=3, steps=8, hidden=256):
        super().__init__()
        self.levels = nn.ModuleList()
        for i in range(levels):
            c *= 4
            self.levels.append(nn.ModuleList(nn.ModuleList([ActNorm(c), InvConv1x1(c), AffineCoupling(c, hidden)])
                                             for _ in range(steps)))
            c //= 2

    def forward(self, x):                                   # b, 3, 32, 32 in [-0.5, 0.5]
        dims = x[0].numel()
        z = x.float()
        logdet = z.new_zeros(x.shape[0])
        logp = z.new_zeros(x.shape[0])
        for i, level in enumerate(self.levels):
            z = _squeeze2d(z)                               # b, 12, 16, 16; b, 24, 8, 8; b, 48, 4, 4
            for step in level:
                for flow in step:
                    z, logdet = flow(z, logdet)
            if i < len(self.levels) - 1:
                z, zs = z.chunk(2, dim=1)
                logp = logp + _std_normal_logp(zs)
        logp = logp + _std_normal_logp(z)
        return -(logp + logdet - dims * math.log(256)) / (dims * math.log(2))   # b


def glow(batch, device):
    """batch: 8-bit 32x32 RGB images, dequantised by uniform noise and
    scaled to [-0.5, 0.5); the likelihood needs no target, so the second
    tensor is a placeholder."""
    def make():
        x = (torch.randint(0, 256, (batch, 3, 32, 32), device=device) + torch.rand(batch, 3, 32, 32, device=device))
        return x / 256 - 0.5, torch.zeros(batch, device=device)
    return Glow(), make, _nll_loss, "adam"


class PerformerBlock(nn.Module):
    """A pre-LN Performer block (Choromanski et al. 2020) with causal
    FAVOR+ attention written out: q and k scaled by d_head^-1/4 and
    mapped to 256 positive random features of the softmax kernel,
    exp(w x - |x|^2 / 2 - stabiliser) / sqrt(256) + 1e-4, by a Gaussian
    256 x 64 projection drawn once (a buffer, neither orthogonalised nor
    redrawn); the stabiliser the feature maximum per query and over the
    whole sequence for the keys (detached, as performer-pytorch's). The
    causal prefix sums of the key-feature x value outer products by one
    cumsum over the sequence of a b, h, L, 256, 64 tensor (einsum, then
    cumsum), the numerator their contraction with the query features,
    the denominator the query features against the prefix sums of the key
    features; the output projection; a GELU MLP of 2,048."""

    def __init__(self, d, heads, features=256, mlp=2048):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, mlp), nn.Linear(mlp, d)
        self.register_buffer("omega", torch.randn(features, d // heads), persistent=False)   # 256, 64
        self.heads = heads

    def features(self, x, keys):                            # b, h, L, 64
        x = x.float() * x.shape[-1] ** -0.25
        wx = (x @ self.omega.t()).float()                   # b, h, L, 256
        stab = (wx.amax((-2, -1), keepdim=True) if keys else wx.amax(-1, keepdim=True)).detach()
        return (torch.exp(wx - 0.5 * (x * x).sum(-1, keepdim=True) - stab) + 1e-4) * self.omega.shape[0] ** -0.5

    def forward(self, x):                                   # b, 2048, 512
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        qf, kf = self.features(q, False), self.features(k, True)   # b, 8, 2048, 256 (fp32)
        kv = torch.einsum("bhlm,bhld->bhlmd", kf.to(v.dtype), v).cumsum(2)   # b, 8, 2048, 256, 64
        num = torch.einsum("bhlm,bhlmd->bhld", qf.to(kv.dtype), kv)          # b, 8, 2048, 64
        den = (qf * kf.cumsum(2)).sum(-1, keepdim=True)    # b, 8, 2048, 1
        a = (num / den).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class PerformerLM(nn.Module):
    """A Performer-shaped causal language model: token and learned position
    embeddings (16,000 x 512, 2,048 x 512), 6 PerformerBlock of 8 heads,
    a final LayerNorm and the head tied to the token embedding. Returns
    b, 2048, 16000."""

    def __init__(self, vocab=16000, d=512, layers=6, heads=8, seq=2048, features=256):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)
        self.blocks = nn.ModuleList(PerformerBlock(d, heads, features) for _ in range(layers))
        self.ln = Fp32LayerNorm(d)

    def forward(self, idx):                                 # b, 2048
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln(x), self.tok.weight)        # b, 2048, 16000


def performer(batch, device):
    return PerformerLM(), _tokens(batch, 2048, 16000, device), _lm_loss, "adamw"


def _knn(query, points, k):
    """The indices (b, M, k) of the k nearest of b, N points to each of b,
    M query points, by cdist and topk, without gradient."""
    with torch.no_grad():
        return torch.cdist(query.float(), points.float()).topk(k, dim=-1, largest=False).indices


def _group(x, idx):
    """The rows of x (b, N, C) named by idx (b, M, k), by torch.gather of
    the expanded indices: b, M, k, C."""
    b, m, k = idx.shape
    return x.gather(1, idx.reshape(b, m * k, 1).expand(-1, -1, x.shape[2])).view(b, m, k, x.shape[2])


class PointTransformerLayer(nn.Module):
    """Point Transformer's vector self-attention (Zhao et al. 2021) over
    the k nearest neighbours of each point: q, k and v Linears; the
    position encoding an MLP (Linear 3 -> d, ReLU, Linear) of the xyz
    differences p_i - p_j; per-channel weights from an MLP (Linear, ReLU,
    Linear) of q_i - k_j + pos_ij, a softmax over the neighbours; the
    output the sum over them of the weights times v_j + pos_ij."""

    def __init__(self, d):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.pos = nn.Sequential(nn.Linear(3, d), nn.ReLU(), nn.Linear(d, d))
        self.attn = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d))

    def forward(self, x, xyz, idx):                         # b, N, d; b, N, 3; b, N, k
        q, k, v = self.q(x), self.k(x), self.v(x)
        pos = self.pos(xyz.unsqueeze(2) - _group(xyz, idx))   # b, N, k, d
        w = self.attn(q.unsqueeze(2) - _group(k, idx) + pos).softmax(2)   # b, N, k, d
        return (w * (_group(v, idx) + pos)).sum(2)          # b, N, d


class PointTransformerBlock(nn.Module):
    """Point Transformer's residual block, with pre-LayerNorms in place of
    its BatchNorms: Linear, ReLU, PointTransformerLayer, LayerNorm, ReLU,
    Linear, added to the input."""

    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.lin1, self.lin2 = nn.Linear(d, d), nn.Linear(d, d)
        self.layer = PointTransformerLayer(d)

    def forward(self, x, xyz, idx):
        y = self.layer(F.relu(self.lin1(self.ln1(x))), xyz, idx)
        return x + self.lin2(F.relu(self.ln2(y)))


class PointTransitionDown(nn.Module):
    """Between stages: every `stride`-th point kept (strided slicing in
    place of farthest point sampling), its k nearest of the previous
    points gathered with their xyz relative to it, Linear (cin + 3 ->
    cout), LayerNorm, ReLU and the maximum over the neighbours."""

    def __init__(self, cin, cout, k=16, stride=4):
        super().__init__()
        self.lin, self.ln = nn.Linear(cin + 3, cout), Fp32LayerNorm(cout)
        self.k, self.stride = k, stride

    def forward(self, x, xyz):                              # b, N, cin; b, N, 3
        new = xyz[:, ::self.stride]                         # b, N / 4, 3
        idx = _knn(new, xyz, self.k)                        # b, N / 4, k
        g = torch.cat([(_group(xyz, idx) - new.unsqueeze(2)).to(x.dtype), _group(x, idx)], dim=3)
        return F.relu(self.ln(self.lin(g))).amax(2), new    # b, N / 4, cout


class PointTransformer(nn.Module):
    """A Point Transformer-shaped classifier on 1,024 points: a Linear 3 ->
    32 with LayerNorm and ReLU per point; 4 stages of widths 32, 64, 128,
    256 at 1,024, 256, 64 and 16 points with 1, 2, 3 and 5 blocks (no
    fifth stage of 512), PointTransitionDown between them, the 16
    nearest neighbours found once per stage; the mean over the points
    and an MLP 256 -> 256 -> 128 -> 40 (ReLU, dropout 0.5)."""

    def __init__(self, classes=40, widths=(32, 64, 128, 256), blocks=(1, 2, 3, 5), k=16, stride=4):
        super().__init__()
        self.inp = nn.Sequential(nn.Linear(3, widths[0]), Fp32LayerNorm(widths[0]), nn.ReLU())
        self.down = nn.ModuleList(PointTransitionDown(a, c, k, stride) for a, c in zip(widths, widths[1:]))
        self.stages = nn.ModuleList(nn.ModuleList(PointTransformerBlock(w) for _ in range(n))
                                    for w, n in zip(widths, blocks))
        self.head = nn.Sequential(nn.Linear(widths[-1], 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 128),
                                  nn.ReLU(), nn.Dropout(0.5), nn.Linear(128, classes))
        self.k = k

    def forward(self, pts):                                 # b, 3, 1024
        xyz = pts.transpose(1, 2).contiguous()              # b, 1024, 3
        x = self.inp(xyz)                                   # b, 1024, 32
        for i, stage in enumerate(self.stages):
            if i > 0:
                x, xyz = self.down[i - 1](x, xyz)           # b, 256, 64; b, 64, 128; b, 16, 256
            idx = _knn(xyz, xyz, self.k)                    # b, N, 16
            for blk in stage:
                x = blk(x, xyz, idx)
        return self.head(x.mean(1))                         # b, 40


def pointtransformer(batch, device):
    return PointTransformer(), _points(batch, device), _cls_loss, "adam"


class BiDAF(nn.Module):
    """BiDAF (Seo et al. 2017) for reading comprehension, 256 context and
    32 query words: a trainable 50,000 x 300 word embedding beside a
    character CNN (100 x 16 embedding of 16 characters per word, Conv1d
    of 100 filters of width 5, ReLU, maximum over the positions), 400 per
    word; a 2-layer highway network; a shared bidirectional nn.LSTM of
    100 over context and query (200). The similarity S (b, 256, 32)
    w . [c; q; c * q] as three terms: a Linear of c, a Linear of q and an
    einsum of c * w_cq with q. Context-to-query attention, the softmax of
    S over the query words times q; query-to-context, the softmax over
    the context of the maximum of S over the query, its weighted sum of c
    broadcast over the context; G = [c; c2q; c * c2q; c * q2c] (800); the
    modelling layer a 2-layer bidirectional nn.LSTM of 100 (M); the start
    logits a Linear of [G; M], the end logits a Linear of [G; M2] with M2
    another bidirectional nn.LSTM of 100 over M; dropout 0.2. No masks:
    every passage and question fills its words. Returns b, 2, 256."""

    def __init__(self, vocab=50000, dw=300, chars=100, dc=16, filters=100, width=5, h=100, drop=0.2):
        super().__init__()
        self.word, self.char = nn.Embedding(vocab, dw), nn.Embedding(chars, dc)
        self.char_cnn = nn.Conv1d(dc, filters, width)
        d = dw + filters                                    # 400
        self.gate = nn.ModuleList(nn.Linear(d, d) for _ in range(2))
        self.lin = nn.ModuleList(nn.Linear(d, d) for _ in range(2))
        self.ctx = nn.LSTM(d, h, batch_first=True, bidirectional=True)
        self.att_c, self.att_q = nn.Linear(2 * h, 1), nn.Linear(2 * h, 1, bias=False)
        self.att_cq = nn.Parameter(torch.empty(2 * h).uniform_(-(2 * h) ** -0.5, (2 * h) ** -0.5))
        self.model = nn.LSTM(8 * h, h, num_layers=2, batch_first=True, bidirectional=True, dropout=drop)
        self.end = nn.LSTM(2 * h, h, batch_first=True, bidirectional=True)
        self.p1, self.p2 = nn.Linear(10 * h, 1), nn.Linear(10 * h, 1)
        self.drop = drop

    def embed(self, words, chars):                          # b, L; b, L, 16
        b, n, c = chars.shape
        e = self.char(chars.reshape(b * n, c)).transpose(1, 2)   # b L, 16, 16
        e = F.relu(self.char_cnn(F.dropout(e, self.drop, self.training))).amax(2).view(b, n, -1)   # b, L, 100
        x = torch.cat([self.word(words), e.float()], dim=2)  # b, L, 400
        for gate, lin in zip(self.gate, self.lin):
            g = torch.sigmoid(gate(x))
            x = g * F.relu(lin(x)) + (1 - g) * x
        y, _ = self.ctx(F.dropout(x.float(), self.drop, self.training))
        return y                                            # b, L, 200

    def forward(self, inp):
        cw, cc, qw, qc = inp                                # b, 256; b, 256, 16; b, 32; b, 32, 16
        c, q = self.embed(cw, cc), self.embed(qw, qc)       # b, 256, 200; b, 32, 200
        s = (self.att_c(c) + self.att_q(q).transpose(1, 2)
             + torch.einsum("bid,bjd->bij", c * self.att_cq.to(c.dtype), q)).float()   # b, 256, 32
        c2q = torch.bmm(s.softmax(2).to(q.dtype), q).to(c.dtype)   # b, 256, 200
        q2c = torch.bmm(s.amax(2).softmax(1).unsqueeze(1).to(c.dtype), c).to(c.dtype)   # b, 1, 200
        g = torch.cat([c, c2q, c * c2q, c * q2c], dim=2)    # b, 256, 800
        m, _ = self.model(F.dropout(g, self.drop, self.training))   # b, 256, 200
        m2, _ = self.end(F.dropout(m, self.drop, self.training))    # b, 256, 200
        p1 = self.p1(torch.cat([g, m], dim=2)).squeeze(2)   # b, 256
        p2 = self.p2(torch.cat([g, m2], dim=2)).squeeze(2)
        return torch.stack([p1, p2.to(p1.dtype)], dim=1)    # b, 2, 256


def _span_loss(out, y):
    """BiDAF's loss: the cross-entropies of the start and of the end
    logits (b, 2, 256) against their positions (b, 2), summed."""
    return F.cross_entropy(out[:, 0], y[:, 0]) + F.cross_entropy(out[:, 1], y[:, 1])


def bidaf(batch, device):
    """batch: passages of 256 words and questions of 32, word ids from
    50,000 and 16 character ids from 100 per word, and answer spans of
    up to 16 words."""
    def make():
        start = torch.randint(0, 240, (batch,), device=device)
        return ((torch.randint(0, 50000, (batch, 256), device=device),
                 torch.randint(0, 100, (batch, 256, 16), device=device),
                 torch.randint(0, 50000, (batch, 32), device=device),
                 torch.randint(0, 100, (batch, 32, 16), device=device)),
                torch.stack([start, start + torch.randint(0, 16, (batch,), device=device)], dim=1))
    return BiDAF(), make, _span_loss, "adam"


# -- twenty-fifth round --------------------------------------------------------
# Models recorded after the twenty-fourth round: a PSPNet-shaped semantic
# segmenter at 384x384 (a bottleneck ResNet at half ResNet-50's width,
# dilated to output stride 8 (48x48), a pyramid pooling module whose
# adaptive average pools to 1x1, 2x2, 3x3 and 6x6 bins go through 1x1
# Conv-BN-ReLU and are bilinearly upsampled back, a 3x3 head, the 21-class
# logits upsampled x8), an EDSR-shaped x4 super-resolution network (16
# norm-free residual blocks of 64 channels on 48x48 patches, residual
# scaling, a global skip, two conv + PixelShuffle(2) upsampling stages,
# L1 against 192x192 targets), a BigGAN-shaped class-conditional GAN at
# 64x64 (spectral normalisation by a power iteration on every weight at
# every call, conditional batch norm whose gains and biases come from a
# class embedding and the latent, self-attention over the 1,024 positions
# of a 32x32 map in both networks, nearest upsampling in the generator,
# average pooling and a projection by the class embedding in the
# discriminator, hinge losses of both networks in one backward), an
# Informer-shaped long-sequence forecaster (ProbSparse self-attention
# written out: randint-sampled keys per query, a max - mean sparsity
# measure, topk queries, full attention for those alone by gather and
# scatter; self-attention distilling by Conv1d, BatchNorm1d, ELU and
# MaxPool1d halving the 336 steps) and a GPT-2-small-width decoder whose
# every block runs under activation checkpointing (non-reentrant), so
# that the backward recomputes each block's forward before its gradient.

class PyramidPooling(nn.Module):
    """PSPNet's pyramid pooling module: the feature map average-pooled
    (adaptively) to 1x1, 2x2, 3x3 and 6x6 bins, each through its own 1x1
    Conv-BN-ReLU to a quarter of the input's channels and bilinearly
    upsampled (align_corners=False) back to the map's size; the four
    concatenated with the map (2 x its channels). The BatchNorm of the
    1x1 bin sees one value per channel and sample, so the batch must be
    at least 2."""

    def __init__(self, cin, bins=(1, 2, 3, 6)):
        super().__init__()
        self.bins = bins
        self.stages = nn.ModuleList(_cbr(cin, cin // len(bins), 1) for _ in bins)

    def forward(self, x):                                   # b, 1024, 48, 48
        outs = [x]
        for n, stage in zip(self.bins, self.stages):
            p = stage(F.adaptive_avg_pool2d(x, n)).contiguous()   # b, 256, n, n
            outs.append(F.interpolate(p, size=x.shape[-2:], mode="bilinear", align_corners=False).to(x.dtype))
        return torch.cat(outs, dim=1)                       # b, 2048, 48, 48


class PSPNet(nn.Module):
    """A PSPNet-shaped segmenter (Zhao et al. 2017) at 384x384, 21 classes
    (PASCAL VOC's): a 7x7 stride-2 stem Conv-BN-ReLU to 64 and a max-pool
    to 1/4 (96x96; PSPNet's ResNet has three 3x3 convolutions there);
    four stages of 2 Bottleneck2d of inner width 32, 64, 128 and 256 (128
    .. 1,024 out, half ResNet-50's widths and 2 blocks a stage), the
    second strided to 48x48, the third and fourth dilated by 2 and 4 in
    place of their strides (output stride 8); BatchNorm2d and ReLU
    throughout. PyramidPooling over the 1,024 channels, a 3x3
    Conv-BN-ReLU to 256, dropout 0.1, a 1x1 Conv2d to the classes, and
    the logits bilinearly upsampled x8 to 384x384 (no auxiliary head)."""

    def __init__(self, classes=21, depths=(2, 2, 2, 2), widths=(32, 64, 128, 256)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))   # b, 64, 96, 96
        blocks, c = [], 64
        for i, (n, w) in enumerate(zip(depths, widths)):
            for j in range(n):
                blocks.append(Bottleneck2d(c, w, 2 if i == 1 and j == 0 else 1, (1, 1, 2, 4)[i]))
                c = 4 * w
        self.backbone = nn.Sequential(*blocks)
        self.ppm = PyramidPooling(c)
        self.head = nn.Sequential(_cbr(2 * c, 256, 3), nn.Dropout2d(0.1), nn.Conv2d(256, classes, 1))

    def forward(self, x):                                   # b, 3, 384, 384
        f = self.backbone(self.stem(x))                     # b, 1024, 48, 48
        out = self.head(self.ppm(f))                        # b, 21, 48, 48
        return F.interpolate(out, scale_factor=8, mode="bilinear", align_corners=False)   # b, 21, 384, 384


def pspnet(batch, device):
    """batch: 384x384 images and per-pixel labels of 21 classes; at least
    2 (the pyramid's 1x1 bin is batch-normed)."""
    def make():
        return (torch.randn(batch, 3, 384, 384, device=device),
                torch.randint(0, 21, (batch, 384, 384), device=device))
    return PSPNet(), make, _cls_loss, "sgd_momentum"


class EDSRBlock(nn.Module):
    """EDSR's residual block: 3x3 Conv2d, ReLU, 3x3 Conv2d, no batch norm,
    the branch scaled by 0.1 and added to the input."""

    def __init__(self, c, scale=0.1):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)
        self.scale = scale

    def forward(self, x):
        return x + self.scale * self.c2(F.relu(self.c1(x)))


class EDSR(nn.Module):
    """An EDSR-shaped x4 super-resolution network (Lim et al. 2017), the
    baseline's 16 blocks of 64 channels with the large model's residual
    scaling 0.1: the DIV2K RGB mean subtracted (a fixed buffer), a 3x3
    Conv2d to 64, 16 EDSRBlock and a 3x3 Conv2d, the head's output added
    back (global skip); the upsampler two stages of a 3x3 Conv2d to 256
    and nn.PixelShuffle(2) (48 -> 96 -> 192), a 3x3 Conv2d to RGB and the
    mean added back."""

    def __init__(self, c=64, blocks=16, scale=0.1):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.4488, 0.4371, 0.4040]).view(1, 3, 1, 1))
        self.head = nn.Conv2d(3, c, 3, padding=1)
        self.body = nn.Sequential(*[EDSRBlock(c, scale) for _ in range(blocks)], nn.Conv2d(c, c, 3, padding=1))
        self.up = nn.Sequential(nn.Conv2d(c, 4 * c, 3, padding=1), nn.PixelShuffle(2),
                                nn.Conv2d(c, 4 * c, 3, padding=1), nn.PixelShuffle(2))
        self.tail = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, x):                                   # b, 3, 48, 48 in [0, 1]
        h = self.head(x - self.mean)                        # b, 64, 48, 48
        h = h + self.body(h)
        return self.tail(self.up(h)) + self.mean            # b, 3, 192, 192


def edsr(batch, device):
    """batch: 48x48 low-resolution patches and their 192x192 targets."""
    def make():
        return torch.rand(batch, 3, 48, 48, device=device), torch.rand(batch, 3, 192, 192, device=device)
    return EDSR(), make, _l1_loss, "adam"


def _sn(m):
    """m with spectral normalisation of its weight (one power iteration a
    call in training): torch.nn.utils.parametrizations.spectral_norm
    where PyTorch has it, else the older hook-based
    torch.nn.utils.spectral_norm."""
    try:
        from torch.nn.utils.parametrizations import spectral_norm
    except ImportError:
        from torch.nn.utils import spectral_norm
    return spectral_norm(m)


class CondBN(nn.Module):
    """BigGAN's conditional batch norm: BatchNorm2d without affine
    parameters, then a per-channel gain 1 + W_g c and bias W_b c from the
    conditioning vector c (spectrally normalised Linears without bias)."""

    def __init__(self, ch, cond):
        super().__init__()
        self.bn = nn.BatchNorm2d(ch, affine=False)
        self.gain, self.bias = _sn(nn.Linear(cond, ch, bias=False)), _sn(nn.Linear(cond, ch, bias=False))

    def forward(self, x, c):                                # b, ch, h, w; b, cond
        return self.bn(x) * (1 + self.gain(c))[:, :, None, None] + self.bias(c)[:, :, None, None]


class SNSelfAttention(nn.Module):
    """SAGAN's self-attention as BigGAN's, over every position of the map
    (BigGAN max-pools the keys and values by 2): spectrally normalised
    1x1 Conv2d (no bias) to theta and phi of C / 8 and g of C / 2, the n x
    n scores theta^T phi by bmm, a softmax over the n keys, the weighted
    sum of g, a 1x1 Conv2d back to C scaled by gamma (a learned scalar,
    zero at start) and added. With frozen, on detached weights."""

    def __init__(self, ch):
        super().__init__()
        self.theta, self.phi = _sn(nn.Conv2d(ch, ch // 8, 1, bias=False)), _sn(nn.Conv2d(ch, ch // 8, 1, bias=False))
        self.g, self.o = _sn(nn.Conv2d(ch, ch // 2, 1, bias=False)), _sn(nn.Conv2d(ch // 2, ch, 1, bias=False))
        self.gamma = nn.Parameter(torch.zeros(()))

    def forward(self, x, frozen=False):                     # b, ch, 32, 32
        b, ch, h, w = x.shape
        theta, phi = _fwd(self.theta, x, frozen).flatten(2), _fwd(self.phi, x, frozen).flatten(2)   # b, ch / 8, 1024
        g = _fwd(self.g, x, frozen).flatten(2)              # b, ch / 2, 1024
        beta = torch.bmm(theta.transpose(1, 2), phi).softmax(-1)   # b, 1024 queries, 1024 keys
        o = torch.bmm(g, beta.transpose(1, 2).to(g.dtype)).view(b, ch // 2, h, w)
        gamma = self.gamma.detach() if frozen else self.gamma
        return x + gamma * _fwd(self.o, o, frozen)


class BigGANGBlock(nn.Module):
    """BigGAN's generator block: CondBN, ReLU, nearest x2 upsampling, 3x3
    SN Conv2d, CondBN, ReLU, 3x3 SN Conv2d; the shortcut the upsampled
    input through a 1x1 SN Conv2d."""

    def __init__(self, cin, cout, cond):
        super().__init__()
        self.bn1, self.bn2 = CondBN(cin, cond), CondBN(cout, cond)
        self.c1, self.c2 = _sn(nn.Conv2d(cin, cout, 3, padding=1)), _sn(nn.Conv2d(cout, cout, 3, padding=1))
        self.sc = _sn(nn.Conv2d(cin, cout, 1))

    def forward(self, x, c):
        h = F.interpolate(F.relu(self.bn1(x, c)), scale_factor=2, mode="nearest")
        h = self.c2(F.relu(self.bn2(self.c1(h), c)))
        return h + self.sc(F.interpolate(x, scale_factor=2, mode="nearest"))


class BigGANGenerator(nn.Module):
    """A BigGAN-shaped generator at 64x64 (ch 64): a shared 100 x 128
    class embedding concatenated with the 128-d latent as every CondBN's
    conditioning vector (256; BigGAN splits the latent per block instead),
    an SN Linear of the latent to 1,024 x 4x4, 4 BigGANGBlock to 512,
    256, 128 and 64 channels (8x8 .. 64x64), SNSelfAttention at 32x32
    (128 channels), BatchNorm2d, ReLU, a 3x3 SN Conv2d to RGB and tanh."""

    def __init__(self, ch=64, zdim=128, classes=100, shared=128):
        super().__init__()
        chans = [16 * ch, 8 * ch, 4 * ch, 2 * ch, ch]
        self.shared = nn.Embedding(classes, shared)
        self.linear = _sn(nn.Linear(zdim, chans[0] * 16))
        self.blocks = nn.ModuleList(BigGANGBlock(a, b, zdim + shared) for a, b in zip(chans, chans[1:]))
        self.attn = SNSelfAttention(2 * ch)
        self.bn, self.out = nn.BatchNorm2d(ch), _sn(nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, z, y):                                # b, 128; b
        c = torch.cat([self.shared(y), z], dim=1)           # b, 256
        h = self.linear(z).view(z.shape[0], -1, 4, 4)       # b, 1024, 4, 4
        for i, blk in enumerate(self.blocks):
            h = blk(h, c)
            if i == 2:
                h = self.attn(h)                            # b, 128, 32, 32
        return torch.tanh(self.out(F.relu(self.bn(h))))     # b, 3, 64, 64


class BigGANDBlock(nn.Module):
    """BigGAN's discriminator block: (ReLU,) 3x3 SN Conv2d, ReLU, 3x3 SN
    Conv2d, 2x2 average pooling; the shortcut a 1x1 SN Conv2d and the
    pooling (pooling first in the first block, which has no leading
    ReLU). With frozen, on detached weights."""

    def __init__(self, cin, cout, preact=True, down=True):
        super().__init__()
        self.c1, self.c2 = _sn(nn.Conv2d(cin, cout, 3, padding=1)), _sn(nn.Conv2d(cout, cout, 3, padding=1))
        self.sc = _sn(nn.Conv2d(cin, cout, 1))
        self.preact, self.down = preact, down

    def forward(self, x, frozen=False):
        h = F.relu(x) if self.preact else x
        h = _fwd(self.c2, F.relu(_fwd(self.c1, h, frozen)), frozen)
        s = x
        if self.down:
            h = F.avg_pool2d(h, 2)
            if not self.preact:
                s = F.avg_pool2d(s, 2)
        s = _fwd(self.sc, s, frozen)
        if self.down and self.preact:
            s = F.avg_pool2d(s, 2)
        return h + s


class BigGANDiscriminator(nn.Module):
    """A BigGAN-shaped discriminator at 64x64 (ch 64): BigGANDBlock 3 ->
    64 (to 32x32), SNSelfAttention at 32x32, blocks to 128, 256, 512 (to
    4x4) and 1,024 (no pooling); ReLU, a sum over the positions, an SN
    Linear to one logit plus the projection term <e_y, h> with an SN 100
    x 1,024 class embedding. With frozen, on detached weights."""

    def __init__(self, ch=64, classes=100):
        super().__init__()
        chans = [3, ch, 2 * ch, 4 * ch, 8 * ch, 16 * ch]
        self.blocks = nn.ModuleList(BigGANDBlock(a, b, preact=i > 0, down=i < 4)
                                    for i, (a, b) in enumerate(zip(chans, chans[1:])))
        self.attn = SNSelfAttention(ch)
        self.linear, self.embed = _sn(nn.Linear(16 * ch, 1)), _sn(nn.Embedding(classes, 16 * ch))

    def forward(self, x, y, frozen=False):                  # b, 3, 64, 64; b
        h = x
        for i, blk in enumerate(self.blocks):
            h = blk(h, frozen)
            if i == 0:
                h = self.attn(h, frozen)                    # b, 64, 32, 32
        h = F.relu(h).sum((2, 3))                           # b, 1024
        e = F.embedding(y, self.embed.weight.detach()) if frozen else self.embed(y)
        return _fwd(self.linear, h, frozen).float() + (e * h.float()).sum(1, keepdim=True)   # b, 1


class BigGAN(nn.Module):
    """A BigGAN training step (Brock et al. 2019) with hinge losses: the
    discriminator on the real images and the detached fakes as one batch
    of 2b, relu(1 - D(real)) + relu(1 + D(fake)); the generator's -D(G(z))
    through the frozen discriminator (detached weights), after the
    discriminator's pass so that hook-based spectral norm reuses that
    pass's weights; both in one backward (disjoint parameters). Returns
    the two terms per sample (b, 2)."""

    def __init__(self):
        super().__init__()
        self.g, self.d = BigGANGenerator(), BigGANDiscriminator()

    def forward(self, inp):
        z, y, real, y_real = inp                            # b, 128; b; b, 3, 64, 64; b
        fake = self.g(z, y)
        logits = self.d(torch.cat([real, fake.detach().to(real.dtype)]), torch.cat([y_real, y])).float()
        d_real, d_fake = logits.chunk(2)                    # b, 1 each
        g = -self.d(fake, y, frozen=True).float()
        return torch.cat([g, F.relu(1 - d_real) + F.relu(1 + d_fake)], dim=1)   # b, 2


def biggan(batch, device):
    """batch: latents and class labels of the fakes, real images in [-1,
    1] and their labels, 100 classes."""
    def make():
        return ((torch.randn(batch, 128, device=device), torch.randint(0, 100, (batch,), device=device),
                 torch.rand(batch, 3, 64, 64, device=device) * 2 - 1,
                 torch.randint(0, 100, (batch,), device=device)), None)
    return BigGAN(), make, _gan_sum_loss, "adam"


class ProbAttention(nn.Module):
    """Informer's ProbSparse self-attention (Zhou et al. 2021), written
    out: q, k, v and output Linears, heads of d / heads; per query, u = c
    ceil(ln L) keys (c = 5) drawn by torch.randint and gathered (b, h, L,
    u, dh), the sampled scores by a batched matmul and the sparsity
    measure their max - mean; the top u queries by topk gathered and
    attended over all L keys (matmul, softmax; causal-masked where
    causal); every other query gets the mean of V (the cumulative mean
    where causal), the attended rows scattered into it."""

    def __init__(self, d, heads, factor=5, causal=False):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.heads, self.factor, self.causal = heads, factor, causal

    def forward(self, x):                                   # b, L, d
        b, n, d = x.shape
        h, dh = self.heads, d // self.heads
        q, k, v = (lin(x).view(b, n, h, dh).transpose(1, 2) for lin in (self.q, self.k, self.v))   # b, h, L, dh
        u = min(n, self.factor * math.ceil(math.log(n)))    # 30 of 336, 25 of 144
        idx = torch.randint(0, n, (n, u), device=x.device)
        qk = (q.unsqueeze(3) @ k[:, :, idx].transpose(3, 4)).squeeze(3)   # b, h, L, u sampled scores
        top = (qk.amax(-1) - qk.mean(-1)).topk(u, dim=-1, sorted=False).indices   # b, h, u
        top4 = top.unsqueeze(-1).expand(-1, -1, -1, dh)
        s = q.gather(2, top4) @ k.transpose(2, 3) / math.sqrt(dh)   # b, h, u, L
        if self.causal:
            s = s.masked_fill(torch.arange(n, device=x.device) > top.unsqueeze(-1), float("-inf"))
        a = s.softmax(-1).to(v.dtype) @ v                   # b, h, u, dh
        if self.causal:
            ctx = v.cumsum(2) / torch.arange(1, n + 1, device=x.device).view(1, 1, n, 1)
        else:
            ctx = v.mean(2, keepdim=True).expand(-1, -1, n, -1)
        ctx = ctx.to(a.dtype).scatter(2, top4, a)           # b, h, L, dh
        return self.o(ctx.transpose(1, 2).reshape(b, n, d))


class InformerEmbedding(nn.Module):
    """Informer's DataEmbedding: the values through a Conv1d of kernel 3
    with circular padding (no bias), plus fixed sinusoidal positions,
    plus a Linear (no bias) of 4 time features; dropout."""

    def __init__(self, c, d, drop, marks=4, maxlen=512):
        super().__init__()
        self.value = nn.Conv1d(c, d, 3, padding=1, padding_mode="circular", bias=False)
        self.time = nn.Linear(marks, d, bias=False)
        pos = torch.arange(maxlen).unsqueeze(1) * torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        self.register_buffer("pe", torch.stack([pos.sin(), pos.cos()], dim=2).flatten(1))   # maxlen, d
        self.drop = nn.Dropout(drop)

    def forward(self, x, mark):                             # b, L, c; b, L, 4
        v = self.value(x.transpose(1, 2)).transpose(1, 2)
        return self.drop(v + self.time(mark) + self.pe[:x.shape[1]])


class InformerLayer(nn.Module):
    """Informer's post-LN encoder or decoder layer: ProbAttention (causal
    in the decoder) and its residual, LayerNorm; in the decoder, full
    attention over the encoder's output (q, k, v, output Linears and
    _attention) and its residual, LayerNorm; a feed-forward of two 1x1
    Conv1d (d -> 4 d, GELU, -> d) and its residual, LayerNorm; dropout."""

    def __init__(self, d, heads, drop, cross=False):
        super().__init__()
        self.self_attn = ProbAttention(d, heads, causal=cross)
        self.cross = nn.ModuleList(nn.Linear(d, d) for _ in range(4)) if cross else None
        self.conv1, self.conv2 = nn.Conv1d(d, 4 * d, 1), nn.Conv1d(4 * d, d, 1)
        self.norms = nn.ModuleList(Fp32LayerNorm(d) for _ in range(3 if cross else 2))
        self.drop, self.heads = nn.Dropout(drop), heads

    def forward(self, x, mem=None):                         # b, L, d; b, S, d
        x = self.norms[0](x + self.drop(self.self_attn(x)))
        if self.cross is not None:
            b, n, d = x.shape
            wq, wk, wv, wo = self.cross
            q = wq(x).view(b, n, self.heads, -1).transpose(1, 2)
            k, v = (w(mem).view(b, mem.shape[1], self.heads, -1).transpose(1, 2) for w in (wk, wv))
            x = self.norms[1](x + self.drop(wo(_attention(q, k, v).transpose(1, 2).reshape(b, n, d))))
        y = self.drop(F.gelu(self.conv1(x.transpose(1, 2))))
        y = self.drop(self.conv2(y)).transpose(1, 2)
        return self.norms[-1](x + y)


class DistilLayer(nn.Module):
    """Informer's self-attention distilling between encoder layers: a
    Conv1d of kernel 3 (circular padding), BatchNorm1d, ELU and a
    MaxPool1d of 3, stride 2: the sequence halved (336 -> 168)."""

    def __init__(self, d):
        super().__init__()
        self.conv = nn.Conv1d(d, d, 3, padding=1, padding_mode="circular")
        self.bn = nn.BatchNorm1d(d)

    def forward(self, x):                                   # b, L, d
        y = F.elu(self.bn(self.conv(x.transpose(1, 2))))
        return F.max_pool1d(y, 3, 2, 1).transpose(1, 2)     # b, L / 2, d


class Informer(nn.Module):
    """An Informer-shaped forecaster of 7 variables (ETT's): the encoder
    over 336 steps, 2 InformerLayer of d 256 and 4 heads with a
    DistilLayer between them (336 -> 168) and a final LayerNorm; the
    decoder over 48 known steps followed by 96 zero placeholders, 1
    InformerLayer with causal ProbAttention and full cross-attention, a
    LayerNorm and a Linear to the 7 variables; the last 96 steps are the
    forecast. Dropout 0.05."""

    def __init__(self, c=7, d=256, heads=4, enc_layers=2, dec_layers=1, pred=96, drop=0.05):
        super().__init__()
        self.enc_emb, self.dec_emb = InformerEmbedding(c, d, drop), InformerEmbedding(c, d, drop)
        self.enc = nn.ModuleList(InformerLayer(d, heads, drop) for _ in range(enc_layers))
        self.distil = nn.ModuleList(DistilLayer(d) for _ in range(enc_layers - 1))
        self.dec = nn.ModuleList(InformerLayer(d, heads, drop, cross=True) for _ in range(dec_layers))
        self.enc_norm, self.dec_norm = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.proj = nn.Linear(d, c)
        self.pred = pred

    def forward(self, inp):
        x_enc, mark_enc, x_dec, mark_dec = inp              # b, 336, 7; b, 336, 4; b, 144, 7; b, 144, 4
        e = self.enc_emb(x_enc, mark_enc)                   # b, 336, 256
        for i, layer in enumerate(self.enc):
            e = layer(e)
            if i < len(self.distil):
                e = self.distil[i](e)                       # b, 168, 256
        e = self.enc_norm(e)
        h = self.dec_emb(x_dec, mark_dec)                   # b, 144, 256
        for layer in self.dec:
            h = layer(h, e)
        return self.proj(self.dec_norm(h))[:, -self.pred:]  # b, 96, 7


def informer(batch, device):
    """batch: windows of 336 + 96 steps of 7 variables with 4 time
    features per step; the decoder's input is the encoder's last 48
    steps and 96 zeros."""
    def make():
        x = torch.randn(batch, 336, 7, device=device)
        return ((x, torch.rand(batch, 336, 4, device=device) - 0.5,
                 torch.cat([x[:, -48:], torch.zeros(batch, 96, 7, device=device)], dim=1),
                 torch.rand(batch, 144, 4, device=device) - 0.5),
                torch.randn(batch, 96, 7, device=device))
    return Informer(), make, _mse_loss, "adam"


class GPTCkpt(GPT2Medium):
    """A GPT-2-small-width decoder (d 768, 12 heads of 64, MLP 3,072 GELU,
    pre-LN) of 6 layers over 512 tokens, 32,000-token vocabulary, tied
    head (GPT2Medium's layout and GPT2MediumBlock's, dropout 0.1), whose
    every block runs in training under
    torch.utils.checkpoint.checkpoint(use_reentrant=False): the forward
    keeps only each block's input, and the backward reruns the block's
    forward (its dropout masks from the stashed RNG state) before taking
    its gradient."""

    def __init__(self):
        super().__init__(vocab=32000, d=768, layers=6, heads=12, seq=512)

    def forward(self, idx):                                 # b, 512
        from torch.utils.checkpoint import checkpoint
        t = idx.shape[1]
        x = self.drop(self.tok(idx) + self.pos(torch.arange(t, device=idx.device)))   # b, 512, 768
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False) if self.training else blk(x)
        return F.linear(self.ln(x), self.tok.weight)        # b, 512, 32000


def gptckpt(batch, device):
    return GPTCkpt(), _tokens(batch, 512, 32000, device), _lm_loss, "adamw"


# -- twenty-sixth round --------------------------------------------------------
# Models recorded after the twenty-fifth round: a ConvNeXt-T and a Swin-T
# written out from torch.nn (the second and fifth rounds' convnext and
# swin are torchvision's; these keep those names free and show the same
# shapes as a hand-written model issues them: the channel LayerNorm by
# permute and nn.LayerNorm, windows by view and permute, the cyclic shift
# by torch.roll with its -100 mask, the relative position bias gathered
# from its table by a fixed index, attention by matmul and softmax, patch
# merging by strided slices and a concatenation), a GRU4Rec-shaped
# session recommender (nn.GRU over 20 clicks of a 100,000-item table, the
# outputs scored by one GEMM against the rows of the batch's own targets
# and of 2,048 negatives drawn by torch.randint each step, a
# cross-entropy over those 12,288 columns), a MedicalNet-style 3-D
# ResNet-18 over single-channel 64^3 volumes (a 7x7x7 Conv3d stem,
# BatchNorm3d, basic blocks with 1x1x1 projection shortcuts, two
# classes) and a RetNet-shaped language model whose multi-scale retention
# runs in its parallel form written out (q and k rotated by fixed sin and
# cos tables, QK^T times a fixed 8 x 1,024 x 1,024 decay mask, a row
# normalisation, V, GroupNorm over the heads and a swish gate).

class ChannelsLastLN(nn.Module):
    """LayerNorm over the channels of a b, c, h, w map as ConvNeXt's stem
    and downsampling layers apply it: permuted to channels-last,
    nn.LayerNorm (eps 1e-6), permuted back."""

    def __init__(self, c):
        super().__init__()
        self.ln = nn.LayerNorm(c, eps=1e-6)

    def forward(self, x):                                   # b, c, h, w
        return self.ln(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class ConvNeXtBlock(nn.Module):
    """ConvNeXt's block as the reference code writes it: a depthwise 7x7
    Conv2d, the map permuted to channels-last, nn.LayerNorm (eps 1e-6),
    Linear to 4 x the channels, GELU, Linear back, the layer scale (a
    learned per-channel gain initialised to 1e-6), permuted back and added
    to the input. Stochastic depth is left out."""

    def __init__(self, c, scale=1e-6):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.ln = nn.LayerNorm(c, eps=1e-6)
        self.fc1, self.fc2 = nn.Linear(c, 4 * c), nn.Linear(4 * c, c)
        self.gamma = nn.Parameter(scale * torch.ones(c))

    def forward(self, x):                                   # b, c, h, w
        y = self.dw(x).permute(0, 2, 3, 1)                  # b, h, w, c
        y = self.gamma * self.fc2(F.gelu(self.fc1(self.ln(y))))
        return x + y.permute(0, 3, 1, 2)


class ConvNeXtNN(nn.Module):
    """ConvNeXt-T (Liu et al. 2022) at 224x224, 1,000 classes: a 4x4
    stride-4 Conv2d stem to 96 and ChannelsLastLN (56x56); stages of 3,
    3, 9 and 3 ConvNeXtBlock at 96, 192, 384 and 768 channels, each after
    the first entered by ChannelsLastLN and a 2x2 stride-2 Conv2d (28, 14,
    7); the mean over positions, LayerNorm and a Linear head. Conv2d and
    Linear weights truncated-normal of std 0.02, biases zero."""

    def __init__(self, depths=(3, 3, 9, 3), dims=(96, 192, 384, 768), classes=1000):
        super().__init__()
        layers = [nn.Conv2d(3, dims[0], 4, stride=4), ChannelsLastLN(dims[0])]
        for i, (n, w) in enumerate(zip(depths, dims)):
            if i:
                layers += [ChannelsLastLN(dims[i - 1]), nn.Conv2d(dims[i - 1], w, 2, stride=2)]
            layers += [ConvNeXtBlock(w) for _ in range(n)]
        self.body = nn.Sequential(*layers)
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], classes)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.body(x)                                    # b, 768, 7, 7
        return self.head(self.norm(x.mean((2, 3))))         # b, 1000


def convnext_nn(batch, device):
    return ConvNeXtNN(), _images(batch, device), _cls_loss, "adamw"


def _window_partition(x, w):
    """A b, H, W, C map cut into w x w windows by view and permute:
    b * (H / w) * (W / w), w * w, C (windows of one image adjacent)."""
    b, h, wd, c = x.shape
    return x.view(b, h // w, w, wd // w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, c)


def _window_merge(x, w, h, wd):
    """_window_partition undone: b * nW, w * w, C back to b, H, W, C."""
    c = x.shape[-1]
    return x.view(-1, h // w, wd // w, w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, h, wd, c)


class SwinWindowAttention(nn.Module):
    """Swin's window attention written out: one qkv Linear, heads of C /
    heads, q scaled by dh^-1/2, the scores q k^T by matmul plus the
    relative position bias (a (2w - 1)^2 x heads table, truncated-normal
    std 0.02, gathered by a fixed w^2 x w^2 index buffer), plus the
    shifted windows' mask (nW, w^2, w^2, 0 or -100) broadcast over the
    images and heads, a softmax, the weighted sum of v by matmul and the
    output Linear."""

    def __init__(self, c, heads, window):
        super().__init__()
        self.qkv, self.proj = nn.Linear(c, 3 * c), nn.Linear(c, c)
        self.table = nn.Parameter(torch.zeros((2 * window - 1) ** 2, heads))   # 169, heads
        nn.init.trunc_normal_(self.table, std=0.02)
        yy, xx = torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")
        coords = torch.stack([yy.flatten(), xx.flatten()])  # 2, 49
        rel = coords[:, :, None] - coords[:, None, :] + (window - 1)   # 2, 49, 49 in [0, 12]
        self.register_buffer("index", rel[0] * (2 * window - 1) + rel[1], persistent=False)   # 49, 49
        self.heads, self.scale = heads, (c // heads) ** -0.5

    def forward(self, x, mask=None):                        # b * nW, 49, C; nW, 49, 49
        bw, n, c = x.shape
        h = self.heads
        q, k, v = self.qkv(x).view(bw, n, 3, h, c // h).permute(2, 0, 3, 1, 4)   # b * nW, h, 49, dh each
        s = (q * self.scale) @ k.transpose(-2, -1)          # b * nW, h, 49, 49
        s = s + self.table[self.index].permute(2, 0, 1)     # h, 49, 49
        if mask is not None:
            nw = mask.shape[0]
            s = (s.view(bw // nw, nw, h, n, n) + mask.unsqueeze(1)).view(bw, h, n, n)
        a = s.softmax(-1).to(v.dtype) @ v                   # b * nW, h, 49, dh
        return self.proj(a.transpose(1, 2).reshape(bw, n, c))


class SwinBlock(nn.Module):
    """Swin's block on a b, H, W, C map: LayerNorm, the map rolled by
    -shift on both axes (torch.roll) when the block is shifted, window
    attention over 7x7 windows, the windows merged and rolled back, the
    residual; LayerNorm, a GELU MLP of 4 x C, the residual. Where the
    map is no larger than a window (7x7 in the last stage) the window is
    the map and nothing is shifted, as in Swin. The shifted block's mask
    (a buffer) keeps each position of a window to the positions of its own
    region of the unrolled map: the cyclic shift brings up to four
    regions into one window."""

    def __init__(self, c, heads, res, window=7, shift=0, mlp=4):
        super().__init__()
        if res <= window:
            window, shift = res, 0
        self.n1, self.n2 = nn.LayerNorm(c), nn.LayerNorm(c)
        self.attn = SwinWindowAttention(c, heads, window)
        self.fc1, self.fc2 = nn.Linear(c, mlp * c), nn.Linear(mlp * c, c)
        self.window, self.shift = window, shift
        mask = None
        if shift:
            img = torch.zeros(1, res, res, 1)
            cuts = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
            for i, (hs, ws) in enumerate((a, b) for a in cuts for b in cuts):
                img[:, hs, ws] = i
            mw = _window_partition(img, window).squeeze(-1)  # nW, 49 region labels
            mask = (mw.unsqueeze(1) != mw.unsqueeze(2)).float() * -100.0   # nW, 49, 49
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x):                                   # b, H, W, C
        hh, ww = x.shape[1:3]
        y = self.n1(x)
        if self.shift:
            y = torch.roll(y, (-self.shift, -self.shift), dims=(1, 2))
        y = _window_merge(self.attn(_window_partition(y, self.window), self.mask), self.window, hh, ww)
        if self.shift:
            y = torch.roll(y, (self.shift, self.shift), dims=(1, 2))
        x = x + y
        return x + self.fc2(F.gelu(self.fc1(self.n2(x))))


class SwinPatchMerging(nn.Module):
    """Swin's patch merging: the four positions of every 2x2 neighbourhood
    (strided slices) concatenated to 4 C, LayerNorm, a Linear to 2 C
    without bias; the map halved on both axes."""

    def __init__(self, c):
        super().__init__()
        self.norm = nn.LayerNorm(4 * c)
        self.red = nn.Linear(4 * c, 2 * c, bias=False)

    def forward(self, x):                                   # b, H, W, C
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], dim=-1)
        return self.red(self.norm(x))                       # b, H / 2, W / 2, 2 C


class SwinNN(nn.Module):
    """Swin-T (Liu et al. 2021) at 224x224, 1,000 classes: 4x4 patches by
    a stride-4 Conv2d to 96 and LayerNorm (56x56, channels-last from here
    on); stages of 2, 2, 6 and 2 SwinBlock (every second one shifted by 3)
    of 3, 6, 12 and 24 heads at 96, 192, 384 and 768 channels, each after
    the first entered by SwinPatchMerging (28, 14, 7); LayerNorm, the mean
    over positions and a Linear head. Linear weights truncated-normal of
    std 0.02, biases zero; dropout and stochastic depth are left out."""

    def __init__(self, depths=(2, 2, 6, 2), heads=(3, 6, 12, 24), c=96, window=7, classes=1000, size=224):
        super().__init__()
        self.embed, self.embed_norm = nn.Conv2d(3, c, 4, stride=4), nn.LayerNorm(c)
        layers, res = [], size // 4
        for i, (n, h) in enumerate(zip(depths, heads)):
            if i:
                layers.append(SwinPatchMerging(c))
                c, res = 2 * c, res // 2
            layers += [SwinBlock(c, h, res, window, window // 2 if j % 2 else 0) for j in range(n)]
        self.layers = nn.Sequential(*layers)
        self.norm, self.head = nn.LayerNorm(c), nn.Linear(c, classes)
        trunc_normal_linears(self)

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.embed_norm(self.embed(x).permute(0, 2, 3, 1))   # b, 56, 56, 96
        x = self.norm(self.layers(x))                       # b, 7, 7, 768
        return self.head(x.mean((1, 2)))                    # b, 1000


def swin_nn(batch, device):
    return SwinNN(), _images(batch, device), _cls_loss, "adamw"


class GRU4Rec(nn.Module):
    """A GRU4Rec-shaped session recommender (Hidasi et al. 2016; the
    cross-entropy over in-batch and sampled negatives of Hidasi and
    Karatzoglou 2018): a 100,000 x 128 item table (uniform in +-sqrt(6 /
    (rows + cols)), as GRU4Rec initialises), embedding dropout 0.2, a
    2-layer nn.GRU of 256 (dropout 0.2 between the layers) over the
    session's clicks, a Linear to 128; each of the b x 20 outputs is
    scored by one GEMM (F.linear) against the table's rows of all b x 20
    targets of the batch and of 2,048 items drawn per step by torch.randint
    and shared by the whole batch. Returns the b * 20, b * 20 + 2,048
    scores; the target of row i is column i (other rows' targets and the
    samples are its negatives, duplicates left in, as GRU4Rec)."""

    def __init__(self, items=100000, d=128, hidden=256, layers=2, negatives=2048, drop=0.2):
        super().__init__()
        self.item = nn.Embedding(items, d)
        nn.init.uniform_(self.item.weight, -math.sqrt(6 / (items + d)), math.sqrt(6 / (items + d)))
        self.gru = nn.GRU(d, hidden, layers, batch_first=True, dropout=drop)
        self.out = nn.Linear(hidden, d)
        self.items, self.negatives, self.drop = items, negatives, drop

    def forward(self, inp):
        seq, nxt = inp                                      # b, 20 clicks; b, 20 next items
        h, _ = self.gru(F.dropout(self.item(seq), self.drop, self.training))   # b, 20, 256
        h = self.out(h).flatten(0, 1)                       # b * 20, 128
        neg = torch.randint(0, self.items, (self.negatives,), device=seq.device)
        cand = self.item(torch.cat([nxt.flatten(), neg]))   # b * 20 + 2048, 128
        return F.linear(h, cand)                            # b * 20, b * 20 + 2048


def gru4rec(batch, device):
    """batch: sessions of 21 clicks, each of the first 20 followed by its
    target; the labels are the diagonal of the scores."""
    def make():
        s = torch.randint(0, 100000, (batch, 21), device=device)
        return ((s[:, :-1].contiguous(), s[:, 1:].contiguous()),
                torch.arange(batch * 20, device=device))
    return GRU4Rec(), make, _cls_loss, "adam"


class BasicBlock3d(nn.Module):
    """ResNet's basic block in 3-D: two 3x3x3 Conv3d (no bias) with
    BatchNorm3d, ReLU between and after the sum; where the block strides
    or widens, the shortcut a strided 1x1x1 Conv3d and BatchNorm3d
    (MedicalNet's shortcut type B)."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.c1, self.b1 = nn.Conv3d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm3d(cout)
        self.c2, self.b2 = nn.Conv3d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm3d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv3d(cin, cout, 1, stride, bias=False), nn.BatchNorm3d(cout))

    def forward(self, x):
        y = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet3D(nn.Module):
    """A MedicalNet-style 3-D ResNet-18 (Chen et al. 2019) classifying
    single-channel 64^3 volumes into 2 classes: a 7x7x7 stride-2 Conv3d
    stem to 64 (no bias), BatchNorm3d, ReLU and a 3x3x3 stride-2
    MaxPool3d (16^3); 4 stages of 2 BasicBlock3d at 64, 128, 256 and 512
    channels, the first block of stages 2-4 strided (8^3, 4^3, 2^3;
    MedicalNet's segmentation nets dilate those instead); the mean over
    the volume and a Linear to the classes. Conv3d weights Kaiming-normal
    (fan out), as MedicalNet's."""

    def __init__(self, classes=2, widths=(64, 128, 256, 512), blocks=2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv3d(1, 64, 7, 2, 3, bias=False), nn.BatchNorm3d(64), nn.ReLU(inplace=True),
                                  nn.MaxPool3d(3, 2, 1))
        layers, c = [], 64
        for i, w in enumerate(widths):
            for j in range(blocks):
                layers.append(BasicBlock3d(c, w, 2 if i and j == 0 else 1))
                c = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(c, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):                                   # b, 1, 64, 64, 64
        x = self.layers(self.stem(x))                       # b, 512, 2, 2, 2
        return self.fc(x.mean((2, 3, 4)))                   # b, 2


def resnet3d(batch, device):
    """batch: single-channel 64^3 volumes and a binary label each."""
    def make():
        return (torch.randn(batch, 1, 64, 64, 64, device=device),
                torch.randint(0, 2, (batch,), device=device))
    return ResNet3D(), make, _cls_loss, "sgd_momentum"


def _theta_shift(x, sin, cos):
    """RetNet's xPos-like rotation: every pair of channels (2i, 2i + 1) of
    b, h, t, dh rotated by the position's angle (t, dh tables, each angle
    repeated for its pair)."""
    rot = torch.stack([-x[..., 1::2], x[..., 0::2]], dim=-1).flatten(-2)
    return x * cos + rot * sin


class MultiScaleRetention(nn.Module):
    """RetNet's multi-scale retention in its parallel form, written out as
    torchscale's: q, k, v, gate and output Linears without bias (v of d,
    not RetNet's 2 d), heads of d / heads; k scaled by dh^-1/2, q and k
    rotated by _theta_shift; R = (Q K^T) * D with D the model's fixed
    decay mask of this head, each row divided by its absolute sum
    (detached, at least 1); R V; GroupNorm of one group per head (in
    fp32) over each position's d channels; multiplied by swish of the
    gate and projected out."""

    def __init__(self, d, heads):
        super().__init__()
        self.q, self.k, self.v, self.g, self.o = (nn.Linear(d, d, bias=False) for _ in range(5))
        self.norm = Fp32GroupNorm(heads, d)
        self.heads, self.scale = heads, (d // heads) ** -0.5

    def forward(self, x, sin, cos, mask):                   # b, t, d; t, dh; t, dh; h, t, t
        b, t, d = x.shape
        h = self.heads
        q = _theta_shift(self.q(x).view(b, t, h, -1).transpose(1, 2), sin, cos)                # b, 8, t, 64
        k = _theta_shift((self.k(x) * self.scale).view(b, t, h, -1).transpose(1, 2), sin, cos)
        v = self.v(x).view(b, t, h, -1).transpose(1, 2)
        r = (q @ k.transpose(-2, -1)) * mask               # b, 8, t, t
        r = r / r.abs().sum(-1, keepdim=True).detach().clamp(min=1)
        o = (r.to(v.dtype) @ v).transpose(1, 2).reshape(b * t, d)   # b * t, d
        o = self.norm(o).view(b, t, d)
        return self.o(F.silu(self.g(x)) * o)


class RetNetLayer(nn.Module):
    """RetNet's pre-LN layer: LayerNorm, MultiScaleRetention, residual;
    LayerNorm, a GELU feed-forward, residual."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.msr = MultiScaleRetention(d, heads)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x, sin, cos, mask):
        x = x + self.msr(self.ln1(x), sin, cos, mask)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class RetNetLM(nn.Module):
    """A RetNet-shaped language model (Sun et al. 2023): a 16,000 x 512
    token table (no position embedding), 6 RetNetLayer of 8 heads and FFN
    2,048, a final LayerNorm and the head tied to the table. Built once
    as buffers: the rotation's sin and cos (1,024 x 64, angles 10000^-i
    over i in [0, 1] per channel pair) and the decay mask D[h, n, m] =
    gamma_h^(n - m) for n >= m, else 0, gamma_h = 1 - 2^(-5 - h), each row
    divided by the square root of its sum (8 x 1,024 x 1,024 fp32, shared
    by the layers). Returns b, 1024, 16000."""

    def __init__(self, vocab=16000, d=512, layers=6, heads=8, ffn=2048, seq=1024):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        nn.init.normal_(self.tok.weight, std=0.02)
        self.blocks = nn.ModuleList(RetNetLayer(d, heads, ffn) for _ in range(layers))
        self.ln = Fp32LayerNorm(d)
        dh = d // heads
        angle = (1.0 / 10000 ** torch.linspace(0, 1, dh // 2)).repeat_interleave(2)   # 64
        ang = torch.arange(seq).float().unsqueeze(1) * angle   # 1024, 64
        self.register_buffer("sin", ang.sin(), persistent=False)
        self.register_buffer("cos", ang.cos(), persistent=False)
        decay = torch.log(1 - 2.0 ** (-5 - torch.arange(heads).float()))   # 8, log gamma
        n = torch.arange(seq).float()
        dist = n.unsqueeze(1) - n.unsqueeze(0)              # 1024, 1024: n - m
        mask = torch.where(dist >= 0, decay.view(-1, 1, 1) * dist, torch.tensor(float("-inf"))).exp()
        self.register_buffer("decay", mask / mask.sum(-1, keepdim=True).sqrt(), persistent=False)   # 8, 1024, 1024

    def forward(self, idx):                                 # b, 1024
        t = idx.shape[1]
        x = self.tok(idx)
        sin, cos, mask = self.sin[:t], self.cos[:t], self.decay[:, :t, :t]
        for blk in self.blocks:
            x = blk(x, sin, cos, mask)
        return F.linear(self.ln(x), self.tok.weight)        # b, 1024, 16000


def retnet(batch, device):
    return RetNetLM(), _tokens(batch, 1024, 16000, device), _lm_loss, "adamw"


# -- twenty-seventh round ------------------------------------------------------
# Models added after the twenty-sixth round: a Demucs-shaped waveform
# source separator (strided Conv1d, ReLU, 1x1 Conv1d and GLU down to a
# 41-step bottleneck, a bidirectional nn.LSTM over it, mirrored 1x1
# Conv1d, GLU and ConvTranspose1d back up with the encoder's outputs
# centre-cropped and added as skips), a Longformer-shaped masked LM over
# 4,096 tokens whose sliding-window attention is written out (keys and
# values padded and cut into overlapping windows by unfold, the banded
# scores of each block of queries by einsum, a fixed band mask, softmax,
# the weighted values by einsum), an X3D-S-shaped video classifier
# (13 frames at 160x160: a 1x3x3 and a depthwise 5x1x1 stem, inverted
# bottlenecks of 1x1x1 Conv3d, depthwise 3x3x3 Conv3d, squeeze-excitation
# every other block and swish, BatchNorm3d throughout), a physics-informed
# MLP for the 2-D heat equation (u_t, u_xx and u_yy by
# torch.autograd.grad with create_graph=True, so that the step's backward
# runs a double backward through the MLP's Linear layers and tanh) and an
# FNet-shaped masked LM (token mixing by torch.fft.fft2 over the sequence
# and the hidden axis, the real part kept, in place of attention).

def _center_trim(x, length):
    """The middle `length` steps of x's last axis (Demucs's center_trim)."""
    cut = x.shape[-1] - length
    return x[..., cut // 2:cut // 2 + length]


class Demucs(nn.Module):
    """A Demucs-shaped waveform source separator (Defossez et al. 2019) on
    1 s of mono audio (44,100 samples) and 4 sources. The encoder: 5
    layers, each a Conv1d of kernel 8 and stride 4, ReLU, a 1x1 Conv1d to
    twice the channels and GLU over the channels, at 48, 96, 192, 384 and
    768 channels (44,100 -> 11,024 -> 2,755 -> 687 -> 170 -> 41 steps). A
    2-layer bidirectional nn.LSTM of 768 over the 41 bottleneck steps and
    a Linear from 1,536 back to 768. The decoder mirrors the encoder: each
    layer adds its level's encoder output, centre-cropped to the decoder's
    length (the input is not padded to Demucs's valid length, so each
    transposed convolution comes out a little short of the level above),
    then a 1x1 Conv1d to twice the channels, GLU, a ConvTranspose1d of
    kernel 8 and stride 4 to the level below's channels and ReLU (none
    after the last, to the 4 sources; 41 -> 168 -> 676 -> 2,708 ->
    10,836 -> 43,348 steps). Demucs's weight rescaling at initialisation
    is left out. Returns b, 4, 43,348."""

    def __init__(self, chans=(48, 96, 192, 384, 768), sources=4, kernel=8, stride=4):
        super().__init__()
        self.enc, self.dec = nn.ModuleList(), nn.ModuleList()
        cin = 1
        for i, c in enumerate(chans):
            self.enc.append(nn.Sequential(nn.Conv1d(cin, c, kernel, stride), nn.ReLU(),
                                          nn.Conv1d(c, 2 * c, 1), nn.GLU(dim=1)))
            cout = chans[i - 1] if i else sources
            dec = [nn.Conv1d(c, 2 * c, 1), nn.GLU(dim=1), nn.ConvTranspose1d(c, cout, kernel, stride)]
            if i:
                dec.append(nn.ReLU())
            self.dec.insert(0, nn.Sequential(*dec))
            cin = c
        self.lstm = nn.LSTM(cin, cin, num_layers=2, bidirectional=True)
        self.lstm_out = nn.Linear(2 * cin, cin)

    def forward(self, x):                                   # b, 1, 44100
        skips = []
        for layer in self.enc:
            x = layer(x)
            skips.append(x)                                 # b, 48, 11024 .. b, 768, 41
        h, _ = self.lstm(x.permute(2, 0, 1))                # 41, b, 1536
        x = self.lstm_out(h).permute(1, 2, 0)               # b, 768, 41
        for layer in self.dec:
            x = layer(x + _center_trim(skips.pop(), x.shape[-1]))
        return x                                            # b, 4, 43348


def _trimmed_l1_loss(out, y):
    """L1 against the targets centre-cropped to the output's length (the
    Demucs training loop's center_trim of the sources)."""
    return F.l1_loss(out, _center_trim(y, out.shape[-1]))


def demucs(batch, device):
    """batch: 1 s mono mixtures (44,100 samples) and their 4 sources."""
    def make():
        return torch.randn(batch, 1, 44100, device=device), torch.randn(batch, 4, 44100, device=device)
    return Demucs(), make, _trimmed_l1_loss, "adam"


class SlidingWindowAttention(nn.Module):
    """Longformer's local attention written out in plain torch: q, k, v
    and output Linears, heads of d / heads, q scaled by dh^-1/2; the
    sequence cut into blocks of r = window / 2 queries, k and v padded by
    r on both sides and cut by unfold into overlapping windows of 3 r
    keys (stride r), one per block; the scores of a block's queries
    against its window by einsum (b, h, t / r, r, 3 r), a fixed mask
    (a buffer) that keeps each query to the 2 r + 1 keys within r of it
    and off the padding, a softmax, and the weighted sum of the window's
    values by einsum. Global attention is left out."""

    def __init__(self, d, heads, window, seq):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        r = window // 2
        i, j = torch.arange(r).view(r, 1), torch.arange(3 * r).view(1, 3 * r)
        key = (torch.arange(seq // r) * r - r).view(-1, 1, 1) + j          # t / r, 1, 3 r: key positions
        keep = (j >= i) & (j <= i + 2 * r) & (key >= 0) & (key < seq)     # t / r, r, 3 r
        self.register_buffer("mask", ~keep, persistent=False)
        self.heads, self.r, self.scale = heads, r, (d // heads) ** -0.5

    def forward(self, x):                                   # b, 4096, 512
        b, t, d = x.shape
        h, r = self.heads, self.r
        q = (self.q(x) * self.scale).view(b, t, h, -1).transpose(1, 2)   # b, 8, 4096, 64
        k = self.k(x).view(b, t, h, -1).transpose(1, 2)
        v = self.v(x).view(b, t, h, -1).transpose(1, 2)
        kw = F.pad(k, (0, 0, r, r)).unfold(2, 3 * r, r)    # b, 8, 32, 64, 384
        vw = F.pad(v, (0, 0, r, r)).unfold(2, 3 * r, r)
        s = torch.einsum("bhnqd,bhndk->bhnqk", q.reshape(b, h, t // r, r, -1), kw)   # b, 8, 32, 128, 384
        p = s.masked_fill(self.mask, float("-inf")).softmax(-1)
        a = torch.einsum("bhnqk,bhndk->bhnqd", p.to(vw.dtype), vw)              # b, 8, 32, 128, 64
        return self.o(a.reshape(b, h, t, -1).transpose(1, 2).reshape(b, t, d))


class LongformerLayer(nn.Module):
    """Longformer's (RoBERTa's) post-LN layer: SlidingWindowAttention, the
    residual and LayerNorm; a GELU feed-forward, the residual and
    LayerNorm. No dropout."""

    def __init__(self, d, heads, ffn, window, seq):
        super().__init__()
        self.attn = SlidingWindowAttention(d, heads, window, seq)
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class LongformerMLM(nn.Module):
    """A Longformer-shaped masked LM (Beltagy et al. 2020) over 4,096
    tokens: token (30,000) and learned position (4,096) embeddings of 512
    summed and LayerNorm; 4 LongformerLayer of 8 heads, window 256 (128
    each side) and FFN 2,048; the hidden states at the masked positions
    gathered, a Linear, GELU, LayerNorm and logits by the token table
    (tied) plus a bias. Linear and embedding weights normal of std 0.02.
    Returns b, 614, 30000."""

    def __init__(self, vocab=30000, d=512, layers=4, heads=8, ffn=2048, seq=4096, window=256):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.emb_ln = Fp32LayerNorm(d)
        self.blocks = nn.ModuleList(LongformerLayer(d, heads, ffn, window, seq) for _ in range(layers))
        self.mlm, self.mlm_ln = nn.Linear(d, d), Fp32LayerNorm(d)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab))
        normal_linears_embeddings(self)

    def forward(self, inp):
        ids, masked = inp                                   # b, 4096; b, 614
        x = self.emb_ln(self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device)))
        for blk in self.blocks:
            x = blk(x)                                      # b, 4096, 512
        return _tied_mlm_head(self, x, masked)              # b, 614, 30000


def _tied_mlm_head(m, x, masked):
    """A masked LM's head on the masked positions alone: gather them,
    Linear, GELU, LayerNorm, the logits by the tied token embedding
    (m.mlm, m.mlm_ln, m.tok, m.mlm_bias)."""
    x = x.gather(1, masked.unsqueeze(-1).expand(-1, -1, x.shape[-1]))
    h = m.mlm_ln(F.gelu(m.mlm(x)))
    return F.linear(h, m.tok.weight, m.mlm_bias)


def _mlm_batch(batch, seq, vocab, device, mask_id):
    """make() of a masked LM: random token ids, 15% of the positions of
    each sequence (distinct, drawn once, so fixed for the reused batch)
    replaced by mask_id; the targets are the original ids there."""
    n_mask = round(0.15 * seq)

    def make():
        ids = torch.randint(0, vocab, (batch, seq), device=device)
        masked = torch.rand(batch, seq, device=device).argsort(1)[:, :n_mask]
        return (ids.scatter(1, masked, mask_id), masked), ids.gather(1, masked)
    return make


def longformer(batch, device):
    """batch: sequences of 4,096 tokens, 614 of them masked; the loss on
    those alone."""
    return LongformerMLM(), _mlm_batch(batch, 4096, 30000, device, 4), _lm_loss, "adamw"


def _round_width(w, divisor=8, least=8):
    """A width rounded to a multiple of 8 as X3D rounds its
    squeeze-excitation widths (at least 8, never below 90% of w)."""
    out = max(least, int(w + divisor / 2) // divisor * divisor)
    return out + divisor if out < 0.9 * w else out


class SE3d(nn.Module):
    """Squeeze-excitation of a b, c, t, h, w map: the mean over the
    positions, a 1x1x1 Conv3d to the reduced width, ReLU, a 1x1x1 Conv3d
    back, sigmoid, the map scaled per channel."""

    def __init__(self, c, ratio=0.0625):
        super().__init__()
        m = _round_width(c * ratio)
        self.fc1, self.fc2 = nn.Conv3d(c, m, 1), nn.Conv3d(m, c, 1)

    def forward(self, x):
        s = x.mean((2, 3, 4), keepdim=True)                 # b, c, 1, 1, 1
        return x * torch.sigmoid(self.fc2(F.relu(self.fc1(s))))


class X3DBlock(nn.Module):
    """X3D's inverted bottleneck: a 1x1x1 Conv3d to 2.25 x the output
    width, BatchNorm3d, ReLU; a depthwise 3x3x3 Conv3d (spatial stride 2
    in a stage's first block), BatchNorm3d, SE3d in every other block,
    swish (SiLU); a 1x1x1 Conv3d to the output width and BatchNorm3d
    (its gain initialised to zero). The shortcut a strided 1x1x1 Conv3d
    and BatchNorm3d where the block strides or widens; ReLU after the
    sum. Conv3d without bias."""

    def __init__(self, cin, cout, inner, stride, se):
        super().__init__()
        self.a, self.bn_a = nn.Conv3d(cin, inner, 1, bias=False), nn.BatchNorm3d(inner)
        self.b = nn.Conv3d(inner, inner, 3, (1, stride, stride), 1, groups=inner, bias=False)
        self.bn_b = nn.BatchNorm3d(inner)
        self.se = SE3d(inner) if se else None
        self.c, self.bn_c = nn.Conv3d(inner, cout, 1, bias=False), nn.BatchNorm3d(cout)
        nn.init.zeros_(self.bn_c.weight)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv3d(cin, cout, 1, (1, stride, stride), bias=False), nn.BatchNorm3d(cout))

    def forward(self, x):
        y = self.bn_b(self.b(F.relu(self.bn_a(self.a(x)))))
        if self.se is not None:
            y = self.se(y)
        y = self.bn_c(self.c(F.silu(y)))
        return F.relu(y + (x if self.down is None else self.down(x)))


class X3D(nn.Module):
    """An X3D-S-shaped video classifier (Feichtenhofer 2020) on 13 frames
    at 160x160, 400 classes (Kinetics-400): a stem of a 1x3x3 Conv3d of
    spatial stride 2 to 24 and a depthwise 5x1x1 Conv3d, BatchNorm3d and
    ReLU (13 x 80 x 80); 4 stages of 3, 5, 11 and 7 X3DBlock at 24, 48,
    96 and 192 channels (inner widths 54, 108, 216 and 432), the first
    block of each spatially strided (40, 20, 10, 5), squeeze-excitation
    in the even-numbered blocks of each stage; the head a 1x1x1 Conv3d to
    432, BatchNorm3d and ReLU, the mean over the clip, a Linear to 2,048
    without bias, ReLU, dropout 0.5 and a Linear to the classes. Conv3d
    weights Kaiming-normal (fan out), the last Linear normal of std
    0.01."""

    def __init__(self, depths=(3, 5, 11, 7), widths=(24, 48, 96, 192), expand=2.25, classes=400):
        super().__init__()
        c = widths[0]
        self.stem = nn.Sequential(nn.Conv3d(3, c, (1, 3, 3), (1, 2, 2), (0, 1, 1), bias=False),
                                  nn.Conv3d(c, c, (5, 1, 1), 1, (2, 0, 0), groups=c, bias=False),
                                  nn.BatchNorm3d(c), nn.ReLU(inplace=True))
        blocks = []
        for n, w in zip(depths, widths):
            for j in range(n):
                blocks.append(X3DBlock(c, w, int(expand * w), 2 if j == 0 else 1, j % 2 == 0))
                c = w
        self.blocks = nn.Sequential(*blocks)
        inner = int(expand * c)
        self.conv5 = nn.Sequential(nn.Conv3d(c, inner, 1, bias=False), nn.BatchNorm3d(inner), nn.ReLU(inplace=True))
        self.lin5 = nn.Linear(inner, 2048, bias=False)
        self.head = nn.Linear(2048, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        nn.init.normal_(self.head.weight, std=0.01)
        nn.init.zeros_(self.head.bias)

    def forward(self, x):                                   # b, 3, 13, 160, 160
        x = self.conv5(self.blocks(self.stem(x)))           # b, 432, 13, 5, 5
        x = F.relu(self.lin5(x.mean((2, 3, 4))))            # b, 2048
        return self.head(F.dropout(x, 0.5, self.training))  # b, 400


def x3d(batch, device):
    """batch: clips of 13 RGB frames at 160x160 and a label of 400 each."""
    def make():
        return (torch.randn(batch, 3, 13, 160, 160, device=device),
                torch.randint(0, 400, (batch,), device=device))
    return X3D(), make, _cls_loss, "sgd_momentum"


class PINN(nn.Module):
    """A physics-informed network (Raissi et al. 2019) for the 2-D heat
    equation u_t = k (u_xx + u_yy) + f on (x, y, t): an MLP of 8 hidden
    Linear layers of 256 with tanh (3 -> 256, 7 x 256 -> 256) and a
    Linear to u, Xavier-normal weights and zero biases. On the collocation
    points (detached and made to require grad) u_x, u_y and u_t come from
    torch.autograd.grad of u's sum with create_graph=True, u_xx and u_yy
    from two more such grads of u_x's and u_y's sums; the residual is
    u_t - k (u_xx + u_yy) - f. On the second point set (boundary and
    initial points) u is compared with the given values. The step's
    backward differentiates through the grads: a double backward of the
    MLP. Returns the residual's and the boundary's mean squares (2,)."""

    def __init__(self, width=256, depth=8, k=0.1):
        super().__init__()
        self.hidden = nn.ModuleList([nn.Linear(3, width)] + [nn.Linear(width, width) for _ in range(depth - 1)])
        self.out = nn.Linear(width, 1)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.zeros_(m.bias)
        self.k = k

    def u(self, p):                                         # n, 3 (x, y, t)
        for fc in self.hidden:
            p = torch.tanh(fc(p))
        return self.out(p).squeeze(1)                       # n

    def forward(self, inp):
        pts, f, bnd, g = inp                                # n, 3; n; m, 3; m
        p = pts.detach().requires_grad_(True)
        u = self.u(p)
        du, = torch.autograd.grad(u.sum(), p, create_graph=True)          # n, 3: u_x, u_y, u_t
        u_x, u_y, u_t = du.unbind(1)
        u_xx = torch.autograd.grad(u_x.sum(), p, create_graph=True)[0][:, 0]
        u_yy = torch.autograd.grad(u_y.sum(), p, create_graph=True)[0][:, 1]
        res = u_t - self.k * (u_xx + u_yy) - f
        err = self.u(bnd).float() - g
        return torch.stack([res.float().pow(2).mean(), err.pow(2).mean()])


def _pinn_loss(out, y):
    """The residual's and the boundary's mean squares, summed (computed by
    the model; y is unused)."""
    return out.sum()


def pinn(batch, device):
    """batch: collocation points (x, y, t uniform in [0, 1]) with the
    source term f at each; a quarter as many boundary and initial points
    with their values."""
    m = max(1, batch // 4)

    def make():
        return ((torch.rand(batch, 3, device=device), torch.randn(batch, device=device),
                 torch.rand(m, 3, device=device), torch.randn(m, device=device)), None)
    return PINN(), make, _pinn_loss, "adam"


class FNetLayer(nn.Module):
    """FNet's layer: the real part of torch.fft.fft2 of the b, t, d
    input over the sequence and the hidden axis (in fp32: there is no
    bf16 FFT), the residual and LayerNorm; a GELU feed-forward, the
    residual and LayerNorm. No dropout."""

    def __init__(self, d, ffn):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d, eps=1e-12), Fp32LayerNorm(d, eps=1e-12)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x):                                   # b, 512, 768
        x = self.ln1(x + torch.fft.fft2(x.float(), dim=(-2, -1)).real)
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class FNetMLM(nn.Module):
    """An FNet-shaped masked LM (Lee-Thorp et al. 2022): token (32,000)
    and position (512) embeddings of 768 summed, LayerNorm and a Linear
    projection; 8 FNetLayer of FFN 3,072 (FNet-Base has 12); the hidden
    states at the masked positions gathered, a Linear, GELU, LayerNorm
    and logits by the token table (tied) plus a bias. Linear and
    embedding weights normal of std 0.02. Returns b, 77, 32000."""

    def __init__(self, vocab=32000, d=768, layers=8, ffn=3072, seq=512):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.emb_ln, self.emb_proj = Fp32LayerNorm(d, eps=1e-12), nn.Linear(d, d)
        self.blocks = nn.ModuleList(FNetLayer(d, ffn) for _ in range(layers))
        self.mlm, self.mlm_ln = nn.Linear(d, d), Fp32LayerNorm(d, eps=1e-12)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab))
        normal_linears_embeddings(self)

    def forward(self, inp):
        ids, masked = inp                                   # b, 512; b, 77
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        x = self.emb_proj(self.emb_ln(x))                   # b, 512, 768
        for blk in self.blocks:
            x = blk(x)
        return _tied_mlm_head(self, x, masked)              # b, 77, 32000


def fnet(batch, device):
    """batch: sequences of 512 tokens, 77 of them masked; the loss on
    those alone."""
    return FNetMLM(), _mlm_batch(batch, 512, 32000, device, 4), _lm_loss, "adamw"


# -- twenty-eighth round -------------------------------------------------------
# Models added after the twenty-seventh round: a ResNeSt-50-shaped
# classifier whose split-attention convolutions are written out (a 3x3
# Conv2d of two radix groups, the splits summed, pooled and passed
# through two 1x1 Conv2d, a softmax across the radix by view and
# transpose, the splits weighted and summed; a deep stem of three 3x3
# convolutions, strides taken by 3x3 average pooling inside the blocks
# and by average pooling ahead of the shortcuts' 1x1 Conv2d), a
# DeBERTa-shaped masked LM whose disentangled attention is written out
# (log-bucketed relative positions, content-to-position and
# position-to-content scores against a LayerNorm-ed table of 512
# relative embeddings, gathered along the key axis by fixed indices and
# added to the content scores), a Big-LSTM-shaped language model (a
# 2-layer nn.LSTM of 2,048 cells with proj_size 512, cuDNN's LSTMP path,
# under an adaptive softmax over a 267,735-word vocabulary written out
# as nn.AdaptiveLogSoftmaxWithLoss's forward: a head and three tail
# clusters whose rows are picked by masks and nonzero, shapes that
# depend on the targets and a host sync per cluster), a
# YouTube-DNN-shaped candidate generator (ragged watch and search
# histories through nn.EmbeddingBag with offsets, the watches summed
# with per_sample_weights, the searches averaged, a ReLU tower and a
# sampled softmax over 500,000 videos: 8,192 candidates drawn per step
# from a log-uniform distribution by its closed form, the logits
# corrected by log Q and the accidental hits masked) and a
# Transolver-shaped neural PDE solver on a 221 x 51 airfoil mesh
# (physics attention: 3x3 Conv2d projections over the structured mesh,
# each point's soft assignment to 64 slices by a softmax at a learned
# temperature, slice tokens by einsum, attention among the slices, the
# slices' outputs spread back to the points by einsum).

class SplitAttnConv2d(nn.Module):
    """ResNeSt's split-attention convolution (SplAtConv2d) of radix r and
    cardinality 1 on c channels: a 3x3 Conv2d from c to r c in r groups
    (no bias), BatchNorm2d and ReLU; the r splits (torch.split) summed,
    adaptive_avg_pool2d to 1x1, a 1x1 Conv2d to the inner width (max(r c
    / 4, 32)), BatchNorm2d, ReLU and a 1x1 Conv2d back to r c; the
    r-softmax (view b, 1, r, c, transpose, softmax over the radix,
    reshape); each split scaled by its attention and the splits summed."""

    def __init__(self, c, radix=2, reduction=4):
        super().__init__()
        inner = max(c * radix // reduction, 32)
        self.conv = nn.Conv2d(c, c * radix, 3, 1, 1, groups=radix, bias=False)
        self.bn0 = nn.BatchNorm2d(c * radix)
        self.fc1, self.bn1 = nn.Conv2d(c, inner, 1), nn.BatchNorm2d(inner)
        self.fc2 = nn.Conv2d(inner, c * radix, 1)
        self.c, self.radix = c, radix

    def forward(self, x):                                   # b, c, h, w
        b = x.shape[0]
        splits = torch.split(F.relu(self.bn0(self.conv(x))), self.c, dim=1)   # r x (b, c, h, w)
        gap = F.adaptive_avg_pool2d(sum(splits), 1)         # b, c, 1, 1
        att = self.fc2(F.relu(self.bn1(self.fc1(gap))))     # b, r c, 1, 1
        att = att.view(b, 1, self.radix, self.c).transpose(1, 2).softmax(1).reshape(b, -1, 1, 1)
        return sum(a * s for a, s in zip(torch.split(att, self.c, dim=1), splits))


class ResNeStBlock(nn.Module):
    """ResNeSt's bottleneck (radix 2, cardinality 1, base width 64): a 1x1
    Conv2d to the inner width, BatchNorm2d and ReLU; SplitAttnConv2d; in a
    stage's first block a 3x3 AvgPool2d (padding 1) of the stage's stride
    after it (avd; a stride-1 blur in the first stage); a 1x1 Conv2d to 4
    x the inner width and BatchNorm2d. The first block's shortcut an
    AvgPool2d of the stride (ceil_mode, count_include_pad off; avg_down,
    1x1 in the first stage), a 1x1 Conv2d and BatchNorm2d. ReLU after the
    sum. Conv2d without bias but for the attention's."""

    def __init__(self, cin, inner, stride, first):
        super().__init__()
        cout = 4 * inner
        self.c1, self.b1 = nn.Conv2d(cin, inner, 1, bias=False), nn.BatchNorm2d(inner)
        self.sa = SplitAttnConv2d(inner)
        self.avd = nn.AvgPool2d(3, stride, 1) if first else None
        self.c3, self.b3 = nn.Conv2d(inner, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.down = None
        if first:
            self.down = nn.Sequential(nn.AvgPool2d(stride, stride, ceil_mode=True, count_include_pad=False),
                                      nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.sa(F.relu(self.b1(self.c1(x))))
        if self.avd is not None:
            y = self.avd(y)
        y = self.b3(self.c3(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNeSt(nn.Module):
    """A ResNeSt-50-shaped classifier (Zhang et al. 2022) at 224x224, 1,000
    classes: a deep stem of three 3x3 Conv2d (the first of stride 2) to 32,
    32 and 64, each with BatchNorm2d and ReLU, and a 3x3 stride-2
    MaxPool2d (56x56); 4 stages of 3, 4, 6 and 3 ResNeStBlock of inner
    widths 64, 128, 256 and 512 (outputs 256 to 2,048), stages 2-4 of
    stride 2 (28, 14, 7); the mean over positions and a Linear head.
    Conv2d weights Kaiming-normal (fan out), as ResNeSt's."""

    def __init__(self, depths=(3, 4, 6, 3), widths=(64, 128, 256, 512), classes=1000):
        super().__init__()
        layers = []
        for i, (cin, cout) in enumerate(((3, 32), (32, 32), (32, 64))):
            layers += [nn.Conv2d(cin, cout, 3, 2 if i == 0 else 1, 1, bias=False), nn.BatchNorm2d(cout),
                       nn.ReLU(inplace=True)]
        layers.append(nn.MaxPool2d(3, 2, 1))
        c = 64
        for i, (n, w) in enumerate(zip(depths, widths)):
            for j in range(n):
                layers.append(ResNeStBlock(c, w, 2 if i and j == 0 else 1, j == 0))
                c = 4 * w
        self.body = nn.Sequential(*layers)
        self.fc = nn.Linear(c, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):                                   # b, 3, 224, 224
        return self.fc(self.body(x).mean((2, 3)))           # b, 1000


def resnest(batch, device):
    """ImageNet images and labels; trained with label smoothing 0.1, as
    ResNeSt was."""
    return ResNeSt(), _images(batch, device), _smooth_cls_loss, "sgd_momentum"


def _log_bucket_positions(seq, buckets=256, max_pos=512):
    """DeBERTa-v2's relative positions i - j of a seq x seq grid of query
    i and key j (make_log_bucket_position): exact within +-buckets / 2,
    log-bucketed beyond, so that |i - j| < max_pos maps into
    (-buckets, buckets). Returns seq, seq int64."""
    n = torch.arange(seq)
    rel = n.view(-1, 1) - n.view(1, -1)
    mid = buckets // 2
    absr = torch.where((rel < mid) & (rel > -mid), torch.full_like(rel, mid - 1), rel.abs())
    logp = torch.ceil(torch.log(absr.float() / mid) / math.log((max_pos - 1) / mid) * (mid - 1)) + mid
    return torch.where(absr <= mid, rel, logp.long() * torch.sign(rel))


class DisentangledAttention(nn.Module):
    """DeBERTa's disentangled self-attention written out as DeBERTa-v2's
    (share_att_key, c2p and p2c): q, k, v and output Linears, heads of
    d / heads; the relative embeddings (2 x 256 rows, LayerNorm-ed by the
    model) projected by the same q and k Linears; the content scores
    q k^T, plus c2p = q pk^T (b, h, t, 512) gathered along its last axis
    at the fixed index clamp(i - j + 256), plus p2c = k pq^T gathered at
    clamp(j - i + 256) and transposed, the sum divided by sqrt(3 dh); a
    softmax and the weighted sum of v by matmul. No dropout."""

    def __init__(self, d, heads):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.heads, self.scale = heads, 1.0 / math.sqrt(3 * d // heads)

    def forward(self, x, rel, c2p, p2c):                    # b, t, d; 512, d; t, t; t, t
        b, t, d = x.shape
        h = self.heads

        def split(y):                                       # n, s, d -> n, h, s, dh
            return y.view(y.shape[0], y.shape[1], h, -1).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))     # b, 12, t, 64
        pq, pk = split(self.q(rel[None])), split(self.k(rel[None]))        # 1, 12, 512, 64
        s = q @ k.transpose(-2, -1)                         # b, 12, t, t
        s = s + torch.gather(q @ pk.transpose(-2, -1), -1, c2p.expand(b, h, t, t))
        s = s + torch.gather(k @ pq.transpose(-2, -1), -1, p2c.expand(b, h, t, t)).transpose(-2, -1)
        a = (s * self.scale).softmax(-1).to(v.dtype) @ v    # b, 12, t, 64
        return self.o(a.transpose(1, 2).reshape(b, t, d))


class DebertaLayer(nn.Module):
    """DeBERTa's (BERT's) post-LN layer: DisentangledAttention, the
    residual and LayerNorm (eps 1e-7); a GELU feed-forward, the residual
    and LayerNorm. No dropout."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.attn = DisentangledAttention(d, heads)
        self.ln1, self.ln2 = Fp32LayerNorm(d, eps=1e-7), Fp32LayerNorm(d, eps=1e-7)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x, rel, c2p, p2c):
        x = self.ln1(x + self.attn(x, rel, c2p, p2c))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class DebertaMLM(nn.Module):
    """A DeBERTa-shaped masked LM (He et al. 2021) with v2's relative
    positions: a 128,100 x 768 token table and LayerNorm (no absolute
    positions); 6 DebertaLayer (DeBERTa-base has 12) of 12 heads and FFN
    3,072, sharing a 512 x 768 relative embedding table that is
    LayerNorm-ed once per step; the fixed c2p and p2c gather indices of
    512 x 512 (buffers) from _log_bucket_positions (256 buckets, max
    position 512); the hidden states at the masked positions gathered, a
    Linear, GELU, LayerNorm and logits by the token table (tied) plus a
    bias. Linear and embedding weights normal of std 0.02. Returns b, 77,
    128100."""

    def __init__(self, vocab=128100, d=768, layers=6, heads=12, ffn=3072, seq=512, buckets=256):
        super().__init__()
        self.tok, self.emb_ln = nn.Embedding(vocab, d), Fp32LayerNorm(d, eps=1e-7)
        self.rel, self.rel_ln = nn.Embedding(2 * buckets, d), Fp32LayerNorm(d, eps=1e-7)
        self.blocks = nn.ModuleList(DebertaLayer(d, heads, ffn) for _ in range(layers))
        self.mlm, self.mlm_ln = nn.Linear(d, d), Fp32LayerNorm(d, eps=1e-7)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab))
        normal_linears_embeddings(self)
        rel = _log_bucket_positions(seq, buckets, seq)      # 512, 512 in [-255, 255]
        self.register_buffer("c2p", (rel + buckets).clamp(0, 2 * buckets - 1), persistent=False)
        self.register_buffer("p2c", (buckets - rel).clamp(0, 2 * buckets - 1), persistent=False)

    def forward(self, inp):
        ids, masked = inp                                   # b, 512; b, 77
        t = ids.shape[1]
        x = self.emb_ln(self.tok(ids))                      # b, 512, 768
        rel = self.rel_ln(self.rel.weight)                  # 512, 768
        c2p, p2c = self.c2p[:t, :t], self.p2c[:t, :t]
        for blk in self.blocks:
            x = blk(x, rel, c2p, p2c)
        return _tied_mlm_head(self, x, masked)              # b, 77, 128100


def deberta(batch, device):
    """batch: sequences of 512 tokens, 77 of them masked; the loss on
    those alone."""
    return DebertaMLM(), _mlm_batch(batch, 512, 128100, device, 4), _lm_loss, "adamw"


def _log_uniform_ids(shape, n, device):
    """Ids in [0, n) drawn from the log-uniform (Zipfian) distribution
    P(c) = log((c + 2) / (c + 1)) / log(n + 1) by its closed form,
    floor(exp(u log(n + 1))) - 1 of uniform u (TensorFlow's
    log_uniform_candidate_sampler, with replacement)."""
    u = torch.rand(shape, device=device)
    return (torch.exp(u * math.log(n + 1)).floor().long() - 1).clamp(0, n - 1)


class AdaptiveSoftmaxNLL(nn.Module):
    """An adaptive softmax (Grave et al. 2017) written out as the forward
    of nn.AdaptiveLogSoftmaxWithLoss, with its modules: a head Linear
    from d to the shortlist plus one column per tail cluster, and per
    cluster i a Linear to d / div^(i + 1) and a Linear to the cluster's
    words, all without bias. Per cluster the rows whose targets fall in
    it are picked by a mask and nonzero (a host sync; shapes that depend
    on the targets): the shortlist's targets copied by index_copy_ to
    the head columns to gather, a tail cluster's rows taken by
    index_select through its two Linears, log_softmax, the target's
    log-probability gathered and written back by index_copy_, its
    cluster's head column filled in by index_fill_; then log_softmax of
    the head over all rows, gathered and added. The log-softmaxes are in
    fp32 (CUDA autocast runs them so anyway; the module's own forward
    then fails to index_copy_ them into a bf16 output). Returns the
    rows' negative log-likelihoods."""

    def __init__(self, d, vocab, cutoffs, div=4.0):
        super().__init__()
        self.cutoffs = list(cutoffs) + [vocab]
        self.shortlist = cutoffs[0]
        self.head = nn.Linear(d, self.shortlist + len(cutoffs), bias=False)
        self.tail = nn.ModuleList(
            nn.Sequential(nn.Linear(d, int(d // div ** (i + 1)), bias=False),
                          nn.Linear(int(d // div ** (i + 1)), hi - lo, bias=False))
            for i, (lo, hi) in enumerate(zip(self.cutoffs[:-1], self.cutoffs[1:])))

    def forward(self, h, tgt):                              # n, d; n
        n = tgt.shape[0]
        out = h.new_zeros(n, dtype=torch.float32)
        gather = tgt.new_empty(n)
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            lo, hi = bounds[i], bounds[i + 1]
            mask = (tgt >= lo) & (tgt < hi)
            rows = mask.nonzero().squeeze(1)
            if rows.numel() == 0:
                continue
            if i == 0:
                gather.index_copy_(0, rows, tgt[mask])
            else:
                gather.index_fill_(0, rows, self.shortlist + i - 1)
                lp = F.log_softmax(self.tail[i - 1](h.index_select(0, rows)).float(), dim=1)
                out.index_copy_(0, rows, lp.gather(1, (tgt[mask] - lo).unsqueeze(1)).squeeze(1))
        head = F.log_softmax(self.head(h).float(), dim=1)   # n, 20003
        return -(out + head.gather(1, gather.unsqueeze(1)).squeeze(1))


class LSTMPAdaptiveLM(nn.Module):
    """A Big-LSTM-shaped language model (Jozefowicz et al. 2016's
    LSTM-2048-512) under an adaptive softmax over a WikiText-103-sized
    vocabulary of 267,735 words: a 267,735 x 512 embedding (normal of
    std 0.02), dropout 0.1; a 2-layer nn.LSTM of 2,048 cells with
    proj_size 512 (each layer's output and recurrent state projected to
    512: cuDNN's LSTMP path), dropout 0.1 between the layers and after;
    AdaptiveSoftmaxNLL of cutoffs 20,000, 40,000 and 200,000 and div 4
    (a head Linear 512 to 20,003 and tail clusters 512 -> 128 -> 20,000,
    512 -> 32 -> 160,000 and 512 -> 8 -> 67,735). Returns the b * t
    tokens' negative log-likelihoods."""

    def __init__(self, vocab=267735, d=512, hidden=2048, layers=2, cutoffs=(20000, 40000, 200000), drop=0.1):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        nn.init.normal_(self.emb.weight, std=0.02)
        self.lstm = nn.LSTM(d, hidden, layers, batch_first=True, dropout=drop, proj_size=d)
        self.asm = AdaptiveSoftmaxNLL(d, vocab, cutoffs)
        self.drop = drop

    def forward(self, inp):
        ids, tgt = inp                                      # b, 128; b, 128
        h, _ = self.lstm(F.dropout(self.emb(ids), self.drop, self.training))   # b, 128, 512
        h = F.dropout(h, self.drop, self.training).reshape(-1, h.shape[-1])
        return self.asm(h, tgt.reshape(-1))                 # b * 128


def lstmp(batch, device):
    """batch: 128-token sequences and their next tokens, both drawn
    log-uniformly (Zipfian: about 79% of them in the head's 20,000
    words); the loss is the model's own."""
    def make():
        s = _log_uniform_ids((batch, 129), 267735, device)
        return (s[:, :-1].contiguous(), s[:, 1:].contiguous()), None
    return LSTMPAdaptiveLM(), make, _own_loss, "adam"


class YouTubeDNN(nn.Module):
    """A YouTube-DNN-shaped candidate generator (Covington et al. 2016):
    the user's watch history (1-50 videos, ragged, with offsets) through
    a 500,000 x 64 nn.EmbeddingBag summed with per_sample_weights (the
    watches' normalised weights: a weighted mean), the search history
    (1-50 tokens) through a 100,000 x 64 nn.EmbeddingBag of mode mean, a
    2,000 x 16 region embedding and 7 dense features, concatenated (151)
    into a ReLU tower 1,024-512-256: the user vector. Sampled softmax
    over the 500,000 videos' output embeddings (500,000 x 256) and
    biases: 8,192 candidates drawn per step by _log_uniform_ids and
    shared by the batch, the logits of the target and of the candidates
    by F.linear, each less log(8,192 Q(c)) of its video, the candidates
    equal to the row's target masked to -inf (accidental hits). Returns
    b, 1 + 8,192 logits, the target's first."""

    def __init__(self, videos=500000, tokens=100000, regions=2000, d=64, tower=(1024, 512, 256), samples=8192):
        super().__init__()
        self.watch = nn.EmbeddingBag(videos, d, mode="sum")
        self.search = nn.EmbeddingBag(tokens, d, mode="mean")
        self.region = nn.Embedding(regions, 16)
        layers, c = [], 2 * d + 16 + 7
        for w in tower:
            layers += [nn.Linear(c, w), nn.ReLU(inplace=True)]
            c = w
        self.tower = nn.Sequential(*layers)
        self.out = nn.Embedding(videos, c)
        nn.init.normal_(self.out.weight, std=c ** -0.5)
        self.out_bias = nn.Parameter(torch.zeros(videos))
        self.videos, self.samples = videos, samples

    def _log_sq(self, c):                                   # log of the expected count S Q(c)
        return torch.log(torch.log1p(1.0 / (c.float() + 1)) * (self.samples / math.log(self.videos + 1)))

    def forward(self, inp):
        wid, woff, wwt, sid, soff, region, dense, tgt = inp
        u = torch.cat([self.watch(wid, woff, per_sample_weights=wwt), self.search(sid, soff),
                       self.region(region), dense], 1)      # b, 151
        u = self.tower(u)                                   # b, 256
        cand = _log_uniform_ids((self.samples,), self.videos, u.device)   # 8192
        true = (u * self.out(tgt)).sum(1) + self.out_bias[tgt] - self._log_sq(tgt)   # b
        samp = F.linear(u, self.out(cand), self.out_bias[cand] - self._log_sq(cand))  # b, 8192
        samp = samp.masked_fill(cand.unsqueeze(0) == tgt.unsqueeze(1), float("-inf"))
        return torch.cat([true.unsqueeze(1).to(samp.dtype), samp], 1)   # b, 8193


def youtubednn(batch, device):
    """batch: users with ragged watch (videos drawn log-uniformly, weights
    uniform and normalised per user) and search histories, a region, 7
    dense features (example age and user age with their squares and
    square roots, gender) and the next watch as target; the labels are
    column 0 of the logits."""
    def ragged(n, most):
        lengths = torch.randint(1, most + 1, (batch,), device=device)
        offsets = torch.cat([lengths.new_zeros(1), lengths.cumsum(0)[:-1]])
        return lengths, offsets, _log_uniform_ids((int(lengths.sum()),), n, device)

    def make():
        wlen, woff, wid = ragged(500000, 50)
        bag = torch.repeat_interleave(torch.arange(batch, device=device), wlen)
        w = torch.rand(wid.shape[0], device=device)
        w = w / torch.zeros(batch, device=device).index_add_(0, bag, w)[bag]
        _, soff, sid = ragged(100000, 50)
        a = torch.rand(batch, 2, device=device)
        dense = torch.cat([a, a * a, a.sqrt(), torch.randint(0, 2, (batch, 1), device=device).float()], 1)
        return ((wid, woff, w, sid, soff, torch.randint(0, 2000, (batch,), device=device), dense,
                 _log_uniform_ids((batch,), 500000, device)),
                torch.zeros(batch, dtype=torch.long, device=device))
    return YouTubeDNN(), make, _cls_loss, "adam"


class PhysicsAttention2d(nn.Module):
    """Transolver's physics attention on a structured mesh
    (Physics_Attention_Structured_Mesh_2D): the b, n, d points laid out
    as a b, d, H, W map; two 3x3 Conv2d (d to d) give each point's
    features fx and its slice key x, both split into heads of d / heads;
    the slice weights w = softmax over the 64 slices of a Linear (dh to
    64) of x divided by a learned per-head temperature (clamped to
    [0.1, 5]); the slice tokens sum_n w fx by einsum, divided by the
    slices' weights sum_n w; q, k and v Linears (dh to dh, no bias) of
    the tokens, attention among the 64 slices by matmul and softmax; the
    outputs spread back to the points as sum_g w out by einsum, the heads
    merged and an output Linear."""

    def __init__(self, d, heads, slices, hw):
        super().__init__()
        dh = d // heads
        self.temperature = nn.Parameter(torch.full((1, heads, 1, 1), 0.5))
        self.in_x, self.in_fx = nn.Conv2d(d, d, 3, 1, 1), nn.Conv2d(d, d, 3, 1, 1)
        self.slice = nn.Linear(dh, slices)
        self.q, self.k, self.v = (nn.Linear(dh, dh, bias=False) for _ in range(3))
        self.o = nn.Linear(d, d)
        self.heads, self.hw, self.scale = heads, hw, dh ** -0.5

    def forward(self, x):                                   # b, n, d
        b, n, d = x.shape
        h = self.heads
        g = x.reshape(b, *self.hw, d).permute(0, 3, 1, 2).contiguous()   # b, d, 221, 51

        def split(y):                                       # b, d, H, W -> b, h, n, dh
            return y.permute(0, 2, 3, 1).reshape(b, n, h, -1).permute(0, 2, 1, 3)
        fx, xm = split(self.in_fx(g)), split(self.in_x(g))
        w = (self.slice(xm) / self.temperature.clamp(0.1, 5)).softmax(-1)   # b, h, n, 64
        tok = torch.einsum("bhnc,bhng->bhgc", fx, w.to(fx.dtype))           # b, h, 64, dh
        tok = tok / (w.sum(2) + 1e-5).unsqueeze(-1)
        q, k, v = self.q(tok), self.k(tok), self.v(tok)
        a = ((q @ k.transpose(-2, -1)) * self.scale).softmax(-1).to(v.dtype) @ v   # b, h, 64, dh
        out = torch.einsum("bhgc,bhng->bhnc", a, w.to(a.dtype))             # b, h, n, dh
        return self.o(out.permute(0, 2, 1, 3).reshape(b, n, d))


class TransolverBlock(nn.Module):
    """Transolver's pre-LN block: LayerNorm, PhysicsAttention2d, the
    residual; LayerNorm, a GELU MLP of mlp x d, the residual."""

    def __init__(self, d, heads, slices, hw, mlp):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.attn = PhysicsAttention2d(d, heads, slices, hw)
        self.fc1, self.fc2 = nn.Linear(d, mlp * d), nn.Linear(mlp * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Transolver(nn.Module):
    """A Transolver-shaped neural PDE solver (Wu et al. 2024) on an
    airfoil's 221 x 51 structured mesh (11,271 points) predicting one
    field (the Mach number) from the points' 2 coordinates: a
    preprocessing MLP (Linear 2 to 256, GELU, Linear to 128) plus a
    learned placeholder vector; 8 TransolverBlock of 128 with 8 heads, 64
    slices and MLP ratio 2; LayerNorm and a Linear to the field. Linear
    weights truncated-normal of std 0.02, biases zero (as the reference's
    initialisation, which also overrides its orthogonal slice
    projection). Returns b, 11271."""

    def __init__(self, hw=(221, 51), space=2, d=128, layers=8, heads=8, slices=64, mlp=2, fields=1):
        super().__init__()
        self.pre = nn.Sequential(nn.Linear(space, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.placeholder = nn.Parameter(torch.rand(d) / d)
        self.blocks = nn.ModuleList(TransolverBlock(d, heads, slices, hw, mlp) for _ in range(layers))
        self.ln, self.head = Fp32LayerNorm(d), nn.Linear(d, fields)
        trunc_normal_linears(self)

    def forward(self, x):                                   # b, 11271, 2
        x = self.pre(x) + self.placeholder
        for blk in self.blocks:
            x = blk(x)                                      # b, 11271, 128
        return self.head(self.ln(x)).squeeze(-1)            # b, 11271


def _rel_l2_loss(out, y):
    """The batch mean of each sample's relative L2 error ||out - y|| /
    ||y|| (Transolver's and FNO's training loss)."""
    return ((out - y).flatten(1).norm(dim=1) / y.flatten(1).norm(dim=1)).mean()


def transolver(batch, device):
    """batch: the mesh points' coordinates and the field at each (random
    values of the airfoil mesh's shape)."""
    def make():
        return torch.rand(batch, 221 * 51, 2, device=device), torch.randn(batch, 221 * 51, device=device)
    return Transolver(), make, _rel_l2_loss, "adamw"

# -- twenty-ninth round --------------------------------------------------------
# Models added after the twenty-eighth round: a GhostNet-1.0-shaped
# classifier whose ghost modules are written out (a 1x1 Conv2d to half
# the output channels, a cheap depthwise 3x3 Conv2d of those, the two
# concatenated and sliced; depthwise stride-2 convolutions and
# squeeze-excitation with a hard-sigmoid gate inside the bottlenecks), a
# BLOOM-shaped decoder whose ALiBi attention is written out (per-head
# slopes times the key positions as the baddbmm bias of the scores, the
# causal mask filled, an fp32 softmax, LayerNorm after the word
# embedding), an xLSTM-shaped language model of sLSTM cells unrolled in a
# Python loop over 128 steps (exponential input and forget gates
# stabilised by a running max in log space, a normaliser state,
# block-diagonal recurrent weights per head as one bmm per step, a
# per-head GroupNorm, a gated MLP), a FinalMLP-shaped click model (39
# tables from 10 to 1,000,000 rows, two MLP streams behind per-stream
# feature gates, fused by a 50-head bilinear interaction by einsum) and a
# MedNeXt-shaped 3-D segmenter (ConvNeXt-style blocks of depthwise 5x5x5
# Conv3d, a GroupNorm of one channel per group and 1x1x1 expansion x4,
# strided depthwise down blocks and depthwise ConvTranspose3d up blocks,
# Dice plus cross-entropy over 14 classes).

class GhostModule(nn.Module):
    """GhostNet's ghost module (ratio 2, cheap kernel 3) from cin to cout
    channels: a 1x1 Conv2d to ceil(cout / 2) channels, BatchNorm2d and
    (if relu) ReLU; a depthwise 3x3 Conv2d of those (groups = channels),
    BatchNorm2d and (if relu) ReLU; both concatenated and sliced to
    cout."""

    def __init__(self, cin, cout, relu=True):
        super().__init__()
        init = math.ceil(cout / 2)
        act = (lambda: nn.ReLU(inplace=True)) if relu else nn.Identity
        self.primary = nn.Sequential(nn.Conv2d(cin, init, 1, bias=False), nn.BatchNorm2d(init), act())
        self.cheap = nn.Sequential(nn.Conv2d(init, init, 3, 1, 1, groups=init, bias=False),
                                   nn.BatchNorm2d(init), act())
        self.cout = cout

    def forward(self, x):
        a = self.primary(x)
        return torch.cat([a, self.cheap(a)], dim=1)[:, :self.cout]


class GhostSE(nn.Module):
    """GhostNet's squeeze-excitation: the mean over the positions, a 1x1
    Conv2d to a quarter of the channels (rounded to a multiple of 4),
    ReLU, a 1x1 Conv2d back, a hard-sigmoid gate scaling the map per
    channel."""

    def __init__(self, c):
        super().__init__()
        r = _round_width(c * 0.25, 4, 4)
        self.reduce, self.expand = nn.Conv2d(c, r, 1), nn.Conv2d(r, c, 1)

    def forward(self, x):
        s = self.expand(F.relu(self.reduce(x.mean((2, 3), keepdim=True))))
        return x * F.hardsigmoid(s)


class GhostBottleneck(nn.Module):
    """GhostNet's bottleneck: a GhostModule to the inner width with ReLU;
    where the stride is 2 a depthwise k x k stride-2 Conv2d and
    BatchNorm2d; GhostSE where the paper has it; a GhostModule to the
    output width without ReLU. The shortcut the identity, or where the
    shape changes a depthwise k x k Conv2d of the stride with BatchNorm2d,
    a 1x1 Conv2d and BatchNorm2d."""

    def __init__(self, cin, mid, cout, k, stride, se):
        super().__init__()
        self.ghost1 = GhostModule(cin, mid, True)
        self.dw = None
        if stride > 1:
            self.dw = nn.Sequential(nn.Conv2d(mid, mid, k, stride, k // 2, groups=mid, bias=False),
                                    nn.BatchNorm2d(mid))
        self.se = GhostSE(mid) if se else None
        self.ghost2 = GhostModule(mid, cout, False)
        self.short = None
        if stride > 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cin, k, stride, k // 2, groups=cin, bias=False),
                                       nn.BatchNorm2d(cin), nn.Conv2d(cin, cout, 1, bias=False),
                                       nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.ghost1(x)
        if self.dw is not None:
            y = self.dw(y)
        if self.se is not None:
            y = self.se(y)
        y = self.ghost2(y)
        return y + (x if self.short is None else self.short(x))


class GhostNet(nn.Module):
    """A GhostNet-1.0-shaped classifier (Han et al. 2020) at 224x224,
    1,000 classes: a 3x3 stride-2 Conv2d to 16 with BatchNorm2d and ReLU;
    16 GhostBottlenecks (kernel, inner width, output width, SE, stride as
    the paper's table: outputs 16, 24, 40, 80, 112 and 160 at 112 down to
    7); a 1x1 Conv2d to 960 with BatchNorm2d and ReLU; the mean over the
    positions, a 1x1 Conv2d to 1,280 with bias and ReLU, dropout 0.2 and
    a Linear head."""

    CFG = ((3, 16, 16, 0, 1),
           (3, 48, 24, 0, 2), (3, 72, 24, 0, 1),
           (5, 72, 40, 1, 2), (5, 120, 40, 1, 1),
           (3, 240, 80, 0, 2), (3, 200, 80, 0, 1), (3, 184, 80, 0, 1), (3, 184, 80, 0, 1),
           (3, 480, 112, 1, 1), (3, 672, 112, 1, 1),
           (5, 672, 160, 1, 2), (5, 960, 160, 0, 1), (5, 960, 160, 1, 1), (5, 960, 160, 0, 1),
           (5, 960, 160, 1, 1))

    def __init__(self, classes=1000):
        super().__init__()
        layers = [nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True)]
        c = 16
        for k, mid, cout, se, stride in self.CFG:
            layers.append(GhostBottleneck(c, mid, cout, k, stride, se))
            c = cout
        layers += [nn.Conv2d(c, 960, 1, bias=False), nn.BatchNorm2d(960), nn.ReLU(inplace=True)]
        self.body = nn.Sequential(*layers)
        self.head = nn.Conv2d(960, 1280, 1)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(1280, classes)

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.body(x).mean((2, 3), keepdim=True)         # b, 960, 1, 1
        return self.fc(self.drop(F.relu(self.head(x)).flatten(1)))   # b, 1000


def ghostnet(batch, device):
    """ImageNet images and labels."""
    return GhostNet(), _images(batch, device), _cls_loss, "sgd_momentum"


def _alibi_slopes(heads):
    """ALiBi's per-head slopes: for the largest power of two p <= heads
    the geometric series 2^(-8 i / p), i = 1..p; any further heads take
    the odd terms of the series for 2p."""
    p = 2 ** int(math.floor(math.log2(heads)))
    s = [2 ** (-8 * i / p) for i in range(1, p + 1)]
    s += [2 ** (-4 * i / p) for i in range(1, 2 * (heads - p), 2)]
    return torch.tensor(s)


class BloomBlock(nn.Module):
    """A BLOOM decoder layer, pre-LN: LayerNorm (fp32), one Linear to q, k
    and v laid out per head, the scores by torch.baddbmm of the ALiBi
    bias (b * heads, 1, t) and q k^T / sqrt(dh), the causal mask filled
    with the fp32 minimum, softmax in fp32, bmm with v, the dense Linear
    and the residual; LayerNorm, Linear 4x, GELU (tanh approximation),
    Linear and the residual."""

    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.qkv, self.dense = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x, alibi, mask):                      # b, t, d; b h, 1, t; t, t
        b, t, d = x.shape
        h = self.heads
        dh = d // h
        qkv = self.qkv(self.ln1(x)).view(b, t, h, 3, dh)
        q = qkv[:, :, :, 0].transpose(1, 2).reshape(b * h, t, dh)
        k = qkv[:, :, :, 1].permute(0, 2, 3, 1).reshape(b * h, dh, t)
        v = qkv[:, :, :, 2].transpose(1, 2).reshape(b * h, t, dh)
        s = torch.baddbmm(alibi.to(q.dtype), q, k, beta=1.0, alpha=dh ** -0.5)   # b h, t, t
        s = s.view(b, h, t, t).float().masked_fill(mask, torch.finfo(torch.float32).min)
        p = F.softmax(s, dim=-1).to(v.dtype).view(b * h, t, t)
        a = torch.bmm(p, v).view(b, h, t, dh).transpose(1, 2).reshape(b, t, d)
        x = x + self.dense(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class Bloom(nn.Module):
    """A BLOOM-560M-shaped decoder at half its depth (12 layers of 1,024,
    16 heads): a 50,257 x 1,024 word embedding followed by LayerNorm, no
    position embeddings; BloomBlocks with ALiBi biases (the slopes times
    the key positions, built per step from fixed buffers and repeated
    over the batch); a final LayerNorm; the head tied to the embedding.
    Linear and Embedding weights normal of std 0.02."""

    def __init__(self, vocab=50257, d=1024, layers=12, heads=16, seq=512):
        super().__init__()
        self.emb, self.emb_ln = nn.Embedding(vocab, d), Fp32LayerNorm(d)
        self.blocks = nn.ModuleList(BloomBlock(d, heads) for _ in range(layers))
        self.ln = Fp32LayerNorm(d)
        self.register_buffer("slopes", _alibi_slopes(heads).view(heads, 1, 1), persistent=False)
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).triu(1), persistent=False)
        normal_linears_embeddings(self)

    def forward(self, idx):                                 # b, t
        b, t = idx.shape
        x = self.emb_ln(self.emb(idx))                      # b, t, 1024
        pos = torch.arange(t, device=idx.device, dtype=torch.float32)
        alibi = (self.slopes * pos.view(1, 1, t)).repeat(b, 1, 1)   # b 16, 1, t
        mask = self.mask[:t, :t]
        for blk in self.blocks:
            x = blk(x, alibi, mask)
        return F.linear(self.ln(x), self.emb.weight)       # b, t, 50257


def bloom(batch, device):
    return Bloom(), _tokens(batch, 512, 50257, device), _lm_loss, "adamw"


class SLSTMLayer(nn.Module):
    """An xLSTM sLSTM layer of d cells in `heads` heads, unrolled in a
    Python loop: a causal depthwise Conv1d (kernel 4) and SiLU feed the
    input and forget gates' Linear, the normed input itself the cell
    input's and output gate's; all steps' input projections computed
    ahead of the loop (in fp32). Per step one bmm of the hidden state
    (heads, b, dh) by the block-diagonal recurrent weights (heads, dh, 4
    dh) added to the step's projections, then with exponential input and
    forget gates stabilised in log space, m_t = max(f~_t + m_{t-1},
    i~_t), i_t = exp(i~_t - m_t), f_t = exp(f~_t + m_{t-1} - m_t), c_t =
    f_t c_{t-1} + i_t tanh(z~_t), n_t = f_t n_{t-1} + i_t, h_t =
    sigmoid(o~_t) c_t / n_t. The stacked outputs through a GroupNorm of
    one group per head (fp32)."""

    def __init__(self, d, heads, conv=4):
        super().__init__()
        dh = d // heads
        self.conv = nn.Conv1d(d, d, conv, groups=d)
        self.w_if, self.w_zo = nn.Linear(d, 2 * d), nn.Linear(d, 2 * d)
        self.r = nn.Parameter(torch.randn(heads, dh, 4 * dh) * dh ** -0.5)
        self.norm = Fp32GroupNorm(heads, d)
        self.heads, self.k = heads, conv

    def forward(self, x):                                   # b, t, d
        b, t, d = x.shape
        nh = self.heads
        dh = d // nh
        c = F.silu(self.conv(F.pad(x.transpose(1, 2), (self.k - 1, 0)))).transpose(1, 2)   # b, t, d
        g = torch.cat([self.w_if(c).view(b, t, 2, nh, dh), self.w_zo(x).view(b, t, 2, nh, dh)], 2)
        wx = g.permute(1, 3, 0, 2, 4).reshape(t, nh, b, 4 * dh).float()   # t, heads, b, [i f z o] dh
        h = wx.new_zeros(nh, b, dh)
        cell, n, m = h, h, h
        hs = []
        for w in wx.unbind(0):                              # t x (heads, b, 4 dh)
            i, f, z, o = (w + torch.bmm(h, self.r)).chunk(4, -1)
            fm = f + m
            m = torch.maximum(fm, i)
            ig, fg = torch.exp(i - m), torch.exp(fm - m)
            cell = fg * cell + ig * torch.tanh(z)
            n = fg * n + ig
            h = torch.sigmoid(o) * cell / n
            hs.append(h)
        y = torch.stack(hs).permute(2, 0, 1, 3).reshape(b * t, d)   # b t, d
        return self.norm(y).view(b, t, d)


class SLSTMBlock(nn.Module):
    """An xLSTM sLSTM block, post-up-projection: LayerNorm (fp32),
    SLSTMLayer, the residual; LayerNorm, a gated MLP (a Linear to 2 x 704,
    about 4/3 d rounded up to 64, GELU of one half times the other, a
    Linear back), the residual."""

    def __init__(self, d, heads):
        super().__init__()
        inner = 64 * math.ceil(4 * d / 3 / 64)
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.cell = SLSTMLayer(d, heads)
        self.up, self.down = nn.Linear(d, 2 * inner), nn.Linear(inner, d)

    def forward(self, x):
        x = x + self.cell(self.ln1(x))
        g, u = self.up(self.ln2(x)).chunk(2, -1)
        return x + self.down(F.gelu(g) * u)


class SLSTMLM(nn.Module):
    """An xLSTM[0:1]-shaped language model of sLSTM blocks only: a 10,000
    x 512 embedding, 2 SLSTMBlocks of 512 cells in 4 heads, a final
    LayerNorm and the head tied to the embedding."""

    def __init__(self, vocab=10000, d=512, layers=2, heads=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        nn.init.normal_(self.emb.weight, std=0.02)
        self.blocks = nn.ModuleList(SLSTMBlock(d, heads) for _ in range(layers))
        self.ln = Fp32LayerNorm(d)

    def forward(self, idx):                                 # b, 128
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln(x), self.emb.weight)       # b, 128, 10000


def slstm(batch, device):
    return SLSTMLM(), _tokens(batch, 128, 10000, device), _lm_loss, "adam"


# 39 categorical fields' vocabulary sizes, log-spaced from 10 to 1,000,000
_FINALMLP_VOCABS = tuple(int(round(10 * 10 ** (5 * i / 38))) for i in range(39))


def _gated_mlp_stream(cin, widths, drop=0.2):
    """One of FinalMLP's streams: Linear, BatchNorm1d, ReLU and dropout per
    width."""
    layers = []
    for w in widths:
        layers += [nn.Linear(cin, w), nn.BatchNorm1d(w), nn.ReLU(inplace=True), nn.Dropout(drop)]
        cin = w
    return nn.Sequential(*layers)


class FinalMLP(nn.Module):
    """A FinalMLP-shaped CTR model (Mao et al. 2023): one nn.Embedding of
    16 per categorical field (39 tables of 10 to 1,000,000 rows, normal of
    std 1e-4), the 13 dense features each scaling a learned 16-vector;
    the 52 x 16 embeddings flattened (832). Per stream a feature gate: a
    ReLU MLP (context 32 -> 800 -> 832) of two context fields' embeddings
    (the two largest tables for stream 1, the next two for stream 2) whose
    2 x sigmoid scales the flattened embeddings; stream 1 an MLP of
    400-400-400, stream 2 of 800-800 (Linear, BatchNorm1d, ReLU, dropout
    0.2). The fusion: Linear(400, 1) + Linear(800, 1) + a 50-head
    bilinear term, the streams' outputs split into 50 heads of 8 and 16
    and each head's x^T W_h y by two einsums. Returns b logits."""

    def __init__(self, vocabs=_FINALMLP_VOCABS, dense=13, d=16, mlp1=(400, 400, 400), mlp2=(800, 800),
                 gate=800, heads=50):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(v, d) for v in vocabs)
        for e in self.embs:
            nn.init.normal_(e.weight, std=1e-4)
        self.dense = nn.Parameter(torch.randn(dense, d) * 0.01)
        flat = (len(vocabs) + dense) * d
        self.gate1 = nn.Sequential(nn.Linear(2 * d, gate), nn.ReLU(inplace=True), nn.Linear(gate, flat))
        self.gate2 = nn.Sequential(nn.Linear(2 * d, gate), nn.ReLU(inplace=True), nn.Linear(gate, flat))
        self.mlp1, self.mlp2 = _gated_mlp_stream(flat, mlp1), _gated_mlp_stream(flat, mlp2)
        self.wx, self.wy = nn.Linear(mlp1[-1], 1), nn.Linear(mlp2[-1], 1)
        self.wxy = nn.Parameter(torch.empty(heads, mlp1[-1] // heads, mlp2[-1] // heads))
        nn.init.xavier_normal_(self.wxy)
        self.heads, self.d = heads, d

    def forward(self, inp):
        dense, ids = inp                                    # b, 13; b, 39
        e = torch.stack([emb(i) for emb, i in zip(self.embs, ids.unbind(1))], 1)   # b, 39, 16
        e = torch.cat([e, dense.unsqueeze(-1) * self.dense], 1)   # b, 52, 16
        flat = e.flatten(1)                                 # b, 832
        d = self.d
        g1 = 2 * torch.sigmoid(self.gate1(flat[:, 37 * d:39 * d]))
        g2 = 2 * torch.sigmoid(self.gate2(flat[:, 35 * d:37 * d]))
        x, y = self.mlp1(flat * g1), self.mlp2(flat * g2)   # b, 400; b, 800
        b = x.shape[0]
        xw = torch.einsum("bhi,hij->bhj", x.view(b, self.heads, -1), self.wxy)   # b, 50, 16
        xy = torch.einsum("bhj,bhj->b", xw, y.view(b, self.heads, -1))
        return (self.wx(x) + self.wy(y)).squeeze(1) + xy   # b


def finalmlp(batch, device):
    """batch: 13 dense features, 39 ids each uniform below its field's
    vocabulary, a 0/1 label."""
    sizes = torch.tensor(_FINALMLP_VOCABS, dtype=torch.float32, device=device)

    def make():
        ids = (torch.rand(batch, len(_FINALMLP_VOCABS), device=device) * sizes).long()
        return ((torch.randn(batch, 13, device=device), ids),
                torch.randint(0, 2, (batch,), device=device).float())
    return FinalMLP(), make, _bce_loss, "adam"


class MedNeXtBlock(nn.Module):
    """A MedNeXt block from c to cout channels: a depthwise k^3 Conv3d
    (groups = c; stride 2 in a down block), or in an up block a depthwise
    k^3 ConvTranspose3d of stride 2 (padding k // 2: 2n - 1 voxels a
    side); GroupNorm of one channel per group (fp32); a 1x1x1 Conv3d to
    exp x c, GELU, a 1x1x1 Conv3d to cout; the residual, through a 1x1x1
    stride-2 Conv3d (ConvTranspose3d going up) where the shape changes;
    an up block's sum padded by one voxel at the start of each axis to
    2n."""

    def __init__(self, c, cout, exp=4, k=5, down=False, up=False):
        super().__init__()
        if up:
            self.dw = nn.ConvTranspose3d(c, c, k, stride=2, padding=k // 2, groups=c)
            self.res = nn.ConvTranspose3d(c, cout, 1, stride=2)
        else:
            self.dw = nn.Conv3d(c, c, k, stride=2 if down else 1, padding=k // 2, groups=c)
            self.res = nn.Conv3d(c, cout, 1, stride=2) if down else None
        self.norm = Fp32GroupNorm(c, c)
        self.expand, self.compress = nn.Conv3d(c, exp * c, 1), nn.Conv3d(exp * c, cout, 1)
        self.up = up

    def forward(self, x):
        y = self.compress(F.gelu(self.expand(self.norm(self.dw(x)))))
        y = y + (x if self.res is None else self.res(x))
        return F.pad(y, (1, 0, 1, 0, 1, 0)) if self.up else y


class MedNeXt(nn.Module):
    """A MedNeXt-shaped segmenter (Roy et al. 2023; kernel 5, expansion 4,
    2 blocks per stage) on 1-channel volumes: a 1x1x1 Conv3d stem to 32;
    4 encoder stages of 2 MedNeXtBlocks at 32, 64, 128 and 256 channels,
    each followed by a down block doubling the channels at half the size;
    2 blocks of 512 at the bottleneck (128^3 to 8^3); up blocks halving
    the channels at twice the size, the encoder's output at that size
    added, 2 blocks per stage; a 1x1x1 Conv3d to 14 classes per voxel."""

    def __init__(self, cin=1, classes=14, c=32, levels=4, blocks=2, exp=4, k=5):
        super().__init__()
        ws = [c * 2 ** i for i in range(levels + 1)]        # 32 .. 512
        stage = lambda w: nn.Sequential(*[MedNeXtBlock(w, w, exp, k) for _ in range(blocks)])
        self.stem = nn.Conv3d(cin, c, 1)
        self.enc = nn.ModuleList(stage(w) for w in ws[:-1])
        self.down = nn.ModuleList(MedNeXtBlock(w, 2 * w, exp, k, down=True) for w in ws[:-1])
        self.bottleneck = stage(ws[-1])
        self.up = nn.ModuleList(MedNeXtBlock(2 * w, w, exp, k, up=True) for w in ws[-2::-1])
        self.dec = nn.ModuleList(stage(w) for w in ws[-2::-1])
        self.out = nn.Conv3d(c, classes, 1)

    def forward(self, x):                                   # b, 1, s, s, s
        x, skips = self.stem(x), []
        for enc, down in zip(self.enc, self.down):
            x = enc(x)
            skips.append(x)
            x = down(x)
        x = self.bottleneck(x)                              # b, 512, s/16 ^3
        for up, dec in zip(self.up, self.dec):
            x = dec(up(x) + skips.pop())
        return self.out(x)                                  # b, 14, s, s, s


def mednext(batch, device):
    """1 x 128^3 CT patches and their labels of 14 classes."""
    def make():
        return (torch.randn(batch, 1, 128, 128, 128, device=device),
                torch.randint(0, 14, (batch, 128, 128, 128), device=device))
    return MedNeXt(), make, _dice_ce_loss, "adamw"



# -- thirtieth round -----------------------------------------------------------
# Models added after the twenty-ninth round: a Mistral-shaped decoder
# (grouped-query attention with 8 query heads over 2 key/value heads, k and
# v expanded by repeat_interleave, rotary embeddings, RMSNorm written out in
# fp32, a SwiGLU MLP, causal attention within a sliding window of 128 over
# 512 tokens given to scaled_dot_product_attention as a boolean band mask),
# a CRNN text recogniser (a VGG-style Conv-BN-ReLU stack with (2, 1)
# max pools to a 65-step sequence, a bidirectional nn.LSTM, CTC against
# targets of per-sample lengths), an S4D-shaped state-space classifier
# (the diagonal SSM's kernel computed each step by a complex Vandermonde
# product, exp and einsum on complex tensors, the long convolution by
# rfft and irfft over 2L), ELECTRA-small-shaped replaced-token-detection
# pretraining (a small generator's MLM head on gathered positions,
# replacements drawn by torch.multinomial, a discriminator's per-token
# binary cross-entropy) and a CGCNN-shaped crystal graph network
# (neighbour features gathered by advanced indexing, gated convolutions
# with BatchNorm1d over atom-neighbour pairs, index_add_ pooling).

class MistralRMSNorm(nn.Module):
    """Mistral's RMSNorm written out as the reference computes it: the input
    cast to fp32, scaled by rsqrt(mean(x^2) + eps), cast back to the input's
    dtype and multiplied by the weight (no centring, no bias)."""

    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        y = x.float()
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * y.to(x.dtype)


def _band_attention(q, k, v, allow):
    """Attention under a boolean mask (True: the key takes part): one call
    of scaled_dot_product_attention with the mask as attn_mask where the
    torch has it (2.0 on), else written out (matmul, the masked logits
    filled with the fp32 minimum, softmax in fp32, matmul)."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=allow)
    s = (q @ k.transpose(-1, -2)).float() * q.shape[-1] ** -0.5
    s = s.masked_fill(~allow, torch.finfo(torch.float32).min)
    return s.softmax(-1).to(v.dtype) @ v


class MistralBlock(nn.Module):
    """A Mistral decoder layer, pre-norm, no biases: RMSNorm; q by a Linear
    d -> d (8 heads of 64), k and v by Linears d -> 128 (2 heads of 64);
    rotary embeddings on q and k; k and v repeated 4 times along the heads
    by repeat_interleave (grouped-query attention); attention within the
    sliding window; the output Linear and the residual; RMSNorm, SwiGLU
    (gate and up Linears to ff, SiLU(gate) * up, down Linear) and the
    residual."""

    def __init__(self, d, heads, kv_heads, ff):
        super().__init__()
        self.heads, self.kv_heads, self.dh = heads, kv_heads, d // heads
        self.n1, self.n2 = MistralRMSNorm(d), MistralRMSNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, kv_heads * self.dh, bias=False)
        self.v = nn.Linear(d, kv_heads * self.dh, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.gate = nn.Linear(d, ff, bias=False)
        self.up = nn.Linear(d, ff, bias=False)
        self.down = nn.Linear(ff, d, bias=False)

    def forward(self, x, cos, sin, allow):                  # b, t, d; t, 64; t, 64; t, t
        b, t, d = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, t, self.heads, self.dh).transpose(1, 2)        # b, 8, t, 64
        k = self.k(h).view(b, t, self.kv_heads, self.dh).transpose(1, 2)     # b, 2, t, 64
        v = self.v(h).view(b, t, self.kv_heads, self.dh).transpose(1, 2)
        q, k = _rope(q, cos, sin), _rope(k, cos, sin)
        rep = self.heads // self.kv_heads
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)   # b, 8, t, 64
        a = _band_attention(q, k, v, allow)                 # b, 8, t, 64
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Mistral(nn.Module):
    """A Mistral-shaped decoder LM (Jiang et al. 2023) scaled down: a 32,000
    x 512 embedding, 6 MistralBlocks of 512 with 8 query and 2 key/value
    heads and SwiGLU MLPs of 1,536, rotary angles of base 10,000 (fixed
    buffers, rotate-half), sliding-window causal attention (query i sees
    keys i - 127 .. i: a fixed t x t boolean band), a final RMSNorm, an
    untied Linear head to the vocabulary."""

    def __init__(self, vocab=32000, d=512, layers=6, heads=8, kv_heads=2, ff=1536, seq=512, window=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(MistralBlock(d, heads, kv_heads, ff) for _ in range(layers))
        self.norm = MistralRMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        hd = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(seq).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)
        i = torch.arange(seq)
        off = i.view(-1, 1) - i.view(1, -1)                 # query minus key
        self.register_buffer("allow", (off >= 0) & (off < window), persistent=False)

    def forward(self, idx):                                 # b, t
        t = idx.shape[1]
        x = self.emb(idx)                                   # b, t, 512
        cos, sin, allow = self.cos[:t], self.sin[:t], self.allow[:t, :t]
        for blk in self.blocks:
            x = blk(x, cos, sin, allow)
        return self.head(self.norm(x))                      # b, t, 32000


def mistral(batch, device):
    return Mistral(), _tokens(batch, 512, 32000, device), _lm_loss, "adamw"


class CRNN(nn.Module):
    """A CRNN text recogniser (Shi et al. 2017) on 1 x 32 x 256 grey
    text-line images: a VGG-style stack of 3x3 Conv2d (padding 1, no bias),
    each with BatchNorm2d and ReLU, at 64, 128, 256, 256, 512 and 512
    channels and a final 2x2 Conv2d (no padding) to 512 with BatchNorm2d
    and ReLU; a 2x2 MaxPool2d after the first and the second, and one of
    kernel 2, stride (2, 1) and padding (0, 1) after the fourth and the
    sixth (32 x 256 -> 16 x 128 -> 8 x 64 -> 4 x 65 -> 2 x 66 -> 1 x 65).
    The 65 columns of 512 features through a 2-layer bidirectional
    nn.LSTM of 256 (batch first), a Linear to the 37 classes (the blank
    0, 0-9 and a-z) and log_softmax in fp32. Returns b, 65, 37."""

    CFG = (64, "pool", 128, "pool", 256, 256, "pool21", 512, 512, "pool21", "last")

    def __init__(self, cin=1, classes=37, hidden=256):
        super().__init__()
        layers, c = [], cin
        for item in self.CFG:
            if item == "pool":
                layers.append(nn.MaxPool2d(2, 2))
            elif item == "pool21":
                layers.append(nn.MaxPool2d(2, (2, 1), (0, 1)))
            else:
                w, k, p = (512, 2, 0) if item == "last" else (item, 3, 1)
                layers += [nn.Conv2d(c, w, k, 1, p, bias=False), nn.BatchNorm2d(w), nn.ReLU(inplace=True)]
                c = w
        self.cnn = nn.Sequential(*layers)
        self.rnn = nn.LSTM(c, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, x):                                   # b, 1, 32, 256
        f = self.cnn(x).squeeze(2).transpose(1, 2)          # b, 512, 1, 65 -> b, 65, 512
        h, _ = self.rnn(f)                                  # b, 65, 512
        return self.fc(h).float().log_softmax(-1)           # b, 65, 37


def _ctc_lengths_loss(out, y):
    """CTC of b, t, classes log-probabilities (every input length t)
    against targets padded to a common length, y = (targets, their
    lengths)."""
    targets, lengths = y
    t = out.shape[1]
    return F.ctc_loss(out.transpose(0, 1), targets,
                      torch.full((out.shape[0],), t, dtype=torch.long, device=out.device), lengths)


def crnn(batch, device):
    """batch: 1 x 32 x 256 text-line images and transcripts of 5 to 20
    symbols from 1 .. 36 (0 is the blank) padded to 20; the lengths drawn
    once from a generator of seed 0, so fixed for the batch."""
    def make():
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(5, 21, (batch,), generator=g)
        return (torch.randn(batch, 1, 32, 256, device=device),
                (torch.randint(1, 37, (batch, 20), device=device), lengths.to(device)))
    return CRNN(), make, _ctc_lengths_loss, "adam"


class S4DKernel(nn.Module):
    """S4D's convolution kernel (Gu et al. 2022, the reference's
    S4DKernel) for h channels of n complex modes, computed each call in
    fp32 from the learned parameters: dt = exp(log_dt) (h, log-uniform in
    [0.001, 0.1]), A = -exp(log_A_real) + i A_imag (S4D-Lin: -0.5 + i pi
    n), C complex normal (stored as h, n, 2 and taken by view_as_complex);
    dtA = A dt, C' = C (exp(dtA) - 1) / A (zero-order hold), and the
    Vandermonde product K = 2 Re(einsum(C', exp(dtA x arange(L)))), the
    h, n, L complex exponentials and a complex einsum over the modes.
    Returns h, L."""

    def __init__(self, h, n=64, dt_min=0.001, dt_max=0.1):
        super().__init__()
        self.log_dt = nn.Parameter(torch.rand(h) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min))
        self.log_a_real = nn.Parameter(torch.full((h, n), math.log(0.5)))
        self.a_imag = nn.Parameter(math.pi * torch.arange(n, dtype=torch.float32).repeat(h, 1))
        self.c = nn.Parameter(torch.randn(h, n, 2) * 0.5 ** 0.5)

    def forward(self, length):
        dt = torch.exp(self.log_dt.float()).unsqueeze(-1)   # h, 1
        a = torch.complex(-torch.exp(self.log_a_real.float()), self.a_imag.float())   # h, n
        dta = a * dt                                        # h, n
        c = torch.view_as_complex(self.c.float()) * (torch.exp(dta) - 1.0) / a   # h, n
        pos = torch.arange(length, device=dta.device, dtype=torch.float32)
        vand = torch.exp(dta.unsqueeze(-1) * pos)           # h, n, L
        return 2 * torch.einsum("hn,hnl->hl", c, vand).real   # h, L


class S4DLayer(nn.Module):
    """An S4D layer over b, h, L: the kernel by S4DKernel, the long
    convolution by FFTs of length 2L in fp32 (rfft of the input and of the
    kernel, their product, irfft, the first L kept), the skip u x D, GELU,
    dropout 0.1, a 1x1 Conv1d h -> 2h (the position-wise Linear) and GLU
    over the channels."""

    def __init__(self, h, n=64, drop=0.1):
        super().__init__()
        self.kernel = S4DKernel(h, n)
        self.d = nn.Parameter(torch.randn(h))
        self.drop = nn.Dropout(drop)
        self.out = nn.Conv1d(h, 2 * h, 1)

    def forward(self, u):                                   # b, h, L
        n = 2 * u.shape[-1]
        u = u.float()
        k = self.kernel(u.shape[-1])                        # h, L
        y = torch.fft.irfft(torch.fft.rfft(u, n=n) * torch.fft.rfft(k, n=n), n=n)[..., :u.shape[-1]]   # b, h, L
        y = y + u * self.d.float().unsqueeze(-1)
        return F.glu(self.out(self.drop(F.gelu(y))), dim=1)   # b, 2h, L -> b, h, L


class S4DClassifier(nn.Module):
    """An S4D sequence classifier as the reference's example.py on
    sequential CIFAR: the 1,024 pixels of 3 channels encoded by a Linear
    to 256, 4 prenorm residual layers (LayerNorm over the channels in
    fp32, S4DLayer of 64 complex modes per channel, dropout 0.1, the
    residual) on b, 256, 1,024, the mean over the sequence and a Linear
    to 10 classes."""

    def __init__(self, cin=3, d=256, layers=4, n=64, classes=10, drop=0.1):
        super().__init__()
        self.enc = nn.Linear(cin, d)
        self.norms = nn.ModuleList(Fp32LayerNorm(d) for _ in range(layers))
        self.layers = nn.ModuleList(S4DLayer(d, n, drop) for _ in range(layers))
        self.drops = nn.ModuleList(nn.Dropout(drop) for _ in range(layers))
        self.dec = nn.Linear(d, classes)

    def forward(self, x):                                   # b, 1024, 3
        x = self.enc(x).transpose(1, 2)                     # b, 256, 1024
        for norm, layer, drop in zip(self.norms, self.layers, self.drops):
            z = norm(x.transpose(1, 2)).transpose(1, 2)
            x = x + drop(layer(z))
        return self.dec(x.mean(-1))                         # b, 10


def s4d(batch, device):
    """batch: CIFAR-sized images as sequences of 1,024 pixels of 3
    channels, and labels of 10 classes."""
    def make():
        return (torch.randn(batch, 1024, 3, device=device),
                torch.randint(0, 10, (batch,), device=device))
    return S4DClassifier(), make, _cls_loss, "adamw"


class ElectraLayer(nn.Module):
    """ELECTRA's (BERT's) post-LN encoder layer: q, k and v Linears, the
    scores q k^T / sqrt(dh) by matmul, softmax in fp32, dropout 0.1,
    matmul with v, the output Linear, dropout, the residual and LayerNorm
    (fp32, eps 1e-12); Linear to ffn, GELU, Linear back, dropout, the
    residual and LayerNorm."""

    def __init__(self, d, heads, ffn, drop=0.1):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = Fp32LayerNorm(d, eps=1e-12), Fp32LayerNorm(d, eps=1e-12)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.drop = nn.Dropout(drop)
        self.heads = heads

    def forward(self, x):                                   # b, t, d
        b, t, d = x.shape
        q, k, v = (m(x).view(b, t, self.heads, -1).transpose(1, 2) for m in (self.q, self.k, self.v))
        s = torch.matmul(q, k.transpose(-1, -2)) * (d // self.heads) ** -0.5   # b, heads, t, t
        p = self.drop(s.float().softmax(-1)).to(v.dtype)
        a = torch.matmul(p, v).transpose(1, 2).reshape(b, t, d)
        x = self.ln1(x + self.drop(self.o(a)))
        return self.ln2(x + self.drop(self.fc2(F.gelu(self.fc1(x)))))


class Electra(nn.Module):
    """ELECTRA-small-shaped replaced-token-detection pretraining (Clark et
    al. 2020): word (30,522), position (512) and token-type (2) embeddings
    of 128 shared by both encoders, summed, LayerNorm and dropout 0.1, a
    Linear to each encoder's width. The generator 4 ElectraLayers of 64 (4
    heads of 16, FFN 256) on the masked ids; its hidden states at the
    masked positions gathered, a Linear 64 -> 128, GELU, LayerNorm, and
    logits by the word embedding (tied) plus a bias, in fp32; the MLM
    cross-entropy on them. Replacements sampled by torch.multinomial from
    the generator's softmax (no gradient) and scattered into the masked
    positions; the discriminator 12 ElectraLayers of 256 (4 heads, FFN
    1,024) on those ids, a Linear 256 -> 256, GELU and a Linear to one
    logit per token; binary cross-entropy against "replaced" (sampled id
    differs from the original) over all tokens. Linear and embedding
    weights normal of std 0.02. Returns b, 2: per sample the MLM loss and
    50 x the discriminator's."""

    def __init__(self, vocab=30522, e=128, seq=512, gen=(64, 4, 4, 256), disc=(256, 12, 4, 1024),
                 drop=0.1, weight=50.0):
        super().__init__()
        self.word, self.pos, self.seg = nn.Embedding(vocab, e), nn.Embedding(seq, e), nn.Embedding(2, e)
        self.emb_ln, self.emb_drop = Fp32LayerNorm(e, eps=1e-12), nn.Dropout(drop)
        gd, gl, gh, gf = gen
        dd, dl, dh, df = disc
        self.gen_proj = nn.Linear(e, gd)
        self.gen = nn.ModuleList(ElectraLayer(gd, gh, gf, drop) for _ in range(gl))
        self.gen_dense, self.gen_ln = nn.Linear(gd, e), Fp32LayerNorm(e, eps=1e-12)
        self.gen_bias = nn.Parameter(torch.zeros(vocab))
        self.disc_proj = nn.Linear(e, dd)
        self.disc = nn.ModuleList(ElectraLayer(dd, dh, df, drop) for _ in range(dl))
        self.disc_dense, self.disc_out = nn.Linear(dd, dd), nn.Linear(dd, 1)
        self.weight = weight
        normal_linears_embeddings(self)

    def embed(self, ids, types):
        pos = self.pos(torch.arange(ids.shape[1], device=ids.device))
        return self.emb_drop(self.emb_ln(self.word(ids) + pos + self.seg(types)))   # b, t, 128

    def forward(self, inp):
        ids, types, masked, target = inp                    # b, 128 ([MASK] at the masked); b, 128; b, 19; b, 19
        x = self.gen_proj(self.embed(ids, types))           # b, 128, 64
        for blk in self.gen:
            x = blk(x)
        x = x.gather(1, masked.unsqueeze(-1).expand(-1, -1, x.shape[-1]))   # b, 19, 64
        h = self.gen_ln(F.gelu(self.gen_dense(x)))          # b, 19, 128
        logits = F.linear(h, self.word.weight, self.gen_bias).float()   # b, 19, 30522
        mlm = F.cross_entropy(logits.transpose(1, 2), target, reduction="none").mean(1)   # b
        with torch.no_grad():
            probs = logits.detach().softmax(-1).view(-1, logits.shape[-1])
            sampled = torch.multinomial(probs, 1).view_as(target)   # b, 19
        fake = ids.scatter(1, masked, sampled)              # b, 128
        labels = torch.zeros(ids.shape, device=ids.device).scatter(1, masked, (sampled != target).float())
        y = self.disc_proj(self.embed(fake, types))         # b, 128, 256
        for blk in self.disc:
            y = blk(y)
        d = self.disc_out(F.gelu(self.disc_dense(y))).squeeze(-1).float()   # b, 128
        disc = F.binary_cross_entropy_with_logits(d, labels, reduction="none").mean(1)   # b
        return torch.stack([mlm, self.weight * disc], 1)    # b, 2


def electra(batch, device):
    """batch: sequences of 128 tokens in two segments, 15% of the
    positions (19, distinct, fixed for the batch) replaced by [MASK] (103);
    the MLM targets are the original ids there."""
    seq, n_mask = 128, round(0.15 * 128)

    def make():
        ids = torch.randint(0, 30522, (batch, seq), device=device)
        cut = torch.randint(16, seq - 16, (batch, 1), device=device)
        types = (torch.arange(seq, device=device).unsqueeze(0) >= cut).long()
        masked = torch.rand(batch, seq, device=device).argsort(1)[:, :n_mask]
        target = ids.gather(1, masked)
        return (ids.scatter(1, masked, 103), types, masked, target), target
    return Electra(), make, _gan_sum_loss, "adamw"


class CGCNNConv(nn.Module):
    """CGCNN's convolution (the reference's ConvLayer): each atom's 12
    neighbours' features gathered by index (x[nbr]), concatenated with the
    atom's own (expanded) and the edge features (64 + 64 + 41), a Linear
    to 128, BatchNorm1d over the n x 12 rows, split into a filter
    (sigmoid) and a core (softplus), their product summed over the
    neighbours, BatchNorm1d, and softplus of the residual."""

    def __init__(self, d=64, e=41):
        super().__init__()
        self.fc = nn.Linear(2 * d + e, 2 * d)
        self.bn1, self.bn2 = nn.BatchNorm1d(2 * d), nn.BatchNorm1d(d)

    def forward(self, x, nbr, edge):                        # n, 64; n, 12; n, 12, 41
        n, m = nbr.shape
        h = torch.cat([x.unsqueeze(1).expand(n, m, x.shape[1]), x[nbr], edge], dim=2)   # n, 12, 169
        g = self.bn1(self.fc(h).view(n * m, -1)).view(n, m, -1)   # n, 12, 128
        filt, core = g.chunk(2, dim=2)
        s = (torch.sigmoid(filt) * F.softplus(core)).sum(1)   # n, 64
        return F.softplus(x + self.bn2(s))


class CGCNN(nn.Module):
    """A CGCNN-shaped crystal property regressor (Xie and Grossman 2018)
    over crystals of 24 atoms with 12 neighbours each: the 92 atom
    features by a Linear to 64; the neighbour distances expanded on 41
    Gaussians (centres 0 to 8 A by 0.2, exp(-(d - c)^2 / 0.2^2)); 3
    CGCNNConv; the mean over each crystal's atoms by index_add_; softplus,
    a Linear 64 -> 128, softplus and a Linear to one value per crystal.
    Returns b."""

    def __init__(self, fin=92, d=64, e=41, layers=3, h=128, atoms=24, dmax=8.0):
        super().__init__()
        self.emb = nn.Linear(fin, d)
        self.register_buffer("centres", torch.linspace(0.0, dmax, e), persistent=False)   # 41
        self.var = dmax / (e - 1)                           # 0.2
        self.convs = nn.ModuleList(CGCNNConv(d, e) for _ in range(layers))
        self.fc, self.out = nn.Linear(d, h), nn.Linear(h, 1)
        self.atoms = atoms

    def forward(self, inp):
        feat, nbr, dist, crystal = inp                      # n, 92; n, 12; n, 12; n (n = 24 b)
        edge = torch.exp(-(dist.unsqueeze(-1) - self.centres) ** 2 / self.var ** 2)   # n, 12, 41
        x = self.emb(feat)                                  # n, 64
        for conv in self.convs:
            x = conv(x, nbr, edge)
        pooled = x.new_zeros(x.shape[0] // self.atoms, x.shape[1]).index_add_(0, crystal, x) / self.atoms   # b, 64
        return self.out(F.softplus(self.fc(F.softplus(pooled)))).squeeze(1)   # b


def cgcnn(batch, device):
    """batch: crystals of 24 atoms (binary atom features, one in ten set),
    each atom's 12 neighbours within its crystal drawn once from a
    generator of seed 0 (the crystals numbered one after another, so the
    indices are offset by 24 per crystal), distances 1 to 8 A sorted
    ascending, and one target value per crystal."""
    atoms, nbrs = 24, 12

    def make():
        g = torch.Generator().manual_seed(0)
        local = torch.randint(0, atoms, (batch, atoms, nbrs), generator=g)
        nbr = (local + atoms * torch.arange(batch).view(-1, 1, 1)).view(-1, nbrs).to(device)   # n, 12
        n = batch * atoms
        dist = (1.0 + 7.0 * torch.rand(n, nbrs, device=device)).sort(1)[0]
        crystal = torch.arange(batch, device=device).repeat_interleave(atoms)   # n
        feat = (torch.rand(n, 92, device=device) < 0.1).float()
        return (feat, nbr, dist, crystal), torch.randn(batch, device=device)
    return CGCNN(), make, _mse_loss, "adam"


# -- thirty-first round --------------------------------------------------------
# Models added after the thirtieth round: CANDLE's TC1 tumour classifier
# (two valid Conv1d over 60,483 gene expression values, one of 128 x 128
# channels and kernel 10 along 60,455 positions, a size-1 and a size-10
# max pool, a 773,760 -> 200 dense layer), CANDLE's Combo drug-pair
# response regressor (one drug tower applied to both drugs, so its weights
# collect two gradients, residual dense layers of 1,000 at a batch of
# thousands), a CANDLE ST1-shaped SMILES regressor (40,000-token
# embedding, two post-LN encoder blocks through nn.MultiheadAttention,
# average pooling), a LeViT-128S-shaped hybrid vision transformer (a
# conv-BN stem, Linear + BatchNorm1d projections, attention biases
# gathered from a heads x offsets table by a fixed n x n index every step,
# Hardswish, attention that subsamples its queries between stages) and a
# DCRNN traffic forecaster on METR-LA's shapes (GRU cells whose gates are
# diffusion convolutions by torch.sparse.mm with two random-walk supports,
# an encoder and a decoder unrolled in Python over 12 steps each).

class TC1(nn.Module):
    """CANDLE's TC1 tumour-type classifier from RNA-seq (Pilot1 TC1,
    tc1_baseline_keras2.py's model) on b x 1 x 60,483 gene expression
    values: Conv1d 1 -> 128 of kernel 20 (stride 1, no padding), ReLU,
    MaxPool1d(1); Conv1d 128 -> 128 of kernel 10, ReLU, MaxPool1d(10)
    (60,483 -> 60,464 -> 60,455 -> 6,045 positions); flattened to
    773,760, Dense 200 + ReLU, dropout 0.1, Dense 20 + ReLU, dropout 0.1,
    Dense to the 18 tumour types (the softmax in the loss)."""

    def __init__(self, genes=60483, classes=18, filters=128, drop=0.1):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, filters, 20), nn.ReLU(inplace=True), nn.MaxPool1d(1),
            nn.Conv1d(filters, filters, 10), nn.ReLU(inplace=True), nn.MaxPool1d(10))
        length = (genes - 19 - 9) // 10                     # 6,045
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(filters * length, 200), nn.ReLU(inplace=True), nn.Dropout(drop),
            nn.Linear(200, 20), nn.ReLU(inplace=True), nn.Dropout(drop), nn.Linear(20, classes))

    def forward(self, x):                                   # b, 1, 60483
        return self.classifier(self.features(x))            # b, 128, 6045 -> b, 18


def tc1(batch, device):
    """batch: expression profiles of 60,483 genes (scaled to [0, 1), as
    TC1 max-abs scales them) and labels of 18 tumour types."""
    def make():
        return (torch.rand(batch, 1, 60483, device=device),
                torch.randint(0, 18, (batch,), device=device))
    return TC1(), make, _cls_loss, "sgd"


class Combo(nn.Module):
    """CANDLE's Combo drug-pair response regressor (Pilot1 Combo,
    combo_baseline_keras2.py's model): a cell-line tower over 942 gene
    expressions and one drug tower over 3,820 descriptors, each 3 dense
    layers of 1,000 (UnoTower: Linear, ReLU, dropout 0.1, the residual
    where the widths match); the drug tower applied to both drugs (shared
    weights); cell, drug 1 and drug 2 concatenated (3,000), 3 residual
    dense layers of 1,000 and a Linear to the growth. Returns b."""

    def __init__(self, cell=942, drug=3820, width=1000, tower=3, top=3, drop=0.1):
        super().__init__()
        self.cell = UnoTower(cell, [width] * tower, drop)
        self.drug = UnoTower(drug, [width] * tower, drop)
        self.top = UnoTower(3 * width, [width] * top, drop)
        self.out = nn.Linear(width, 1)

    def forward(self, inp):                                 # (b, 942), (b, 3820), (b, 3820)
        cell, drug1, drug2 = inp
        h = torch.cat([self.cell(cell), self.drug(drug1), self.drug(drug2)], dim=1)   # b, 3000
        return self.out(self.top(h)).squeeze(1)             # b


def combo(batch, device):
    """batch: a cell line's 942 expression values, two drugs' 3,820
    descriptors and the pair's growth (percent growth / 100, in -1 .. 1)."""
    def make():
        return ((torch.randn(batch, 942, device=device),
                 torch.randn(batch, 3820, device=device),
                 torch.randn(batch, 3820, device=device)),
                torch.rand(batch, device=device) * 2 - 1)
    return Combo(), make, _mse_loss, "adam"


class ST1Block(nn.Module):
    """The Keras TransformerBlock of CANDLE's ST1 (post-LN): self-attention
    by nn.MultiheadAttention (batch first, no weights returned), dropout
    0.1, the residual and LayerNorm (fp32, eps 1e-6); Dense to ff + ReLU,
    Dense back, dropout, the residual and LayerNorm."""

    def __init__(self, d, heads, ff, drop=0.1):
        super().__init__()
        self.att = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln1, self.ln2 = Fp32LayerNorm(d, eps=1e-6), Fp32LayerNorm(d, eps=1e-6)
        self.ffn = nn.Sequential(nn.Linear(d, ff), nn.ReLU(inplace=True), nn.Linear(ff, d))
        self.drop1, self.drop2 = nn.Dropout(drop), nn.Dropout(drop)

    def forward(self, x):                                   # b, t, d
        x = self.ln1(x + self.drop1(self.att(x, x, x, need_weights=False)[0]))
        return self.ln2(x + self.drop2(self.ffn(x)))


class ST1(nn.Module):
    """A CANDLE ST1-shaped SMILES regressor (Pilot1 ST1,
    smiles_regress_transformer's TokenAndPositionEmbedding and
    TransformerBlock): token ids of length 250 over a 40,000-word vocabulary,
    token and position embeddings of 128 summed, 2 ST1Blocks (4 heads of
    32, FFN 256), the average over the 250 tokens, dropout 0.1, Dense 256
    + ReLU, dropout and a Dense to one value (a docking score). Returns b."""

    def __init__(self, vocab=40000, seq=250, d=128, heads=4, ff=256, layers=2, hidden=256, drop=0.1):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(ST1Block(d, heads, ff, drop) for _ in range(layers))
        self.head = nn.Sequential(nn.Dropout(drop), nn.Linear(d, hidden), nn.ReLU(inplace=True),
                                  nn.Dropout(drop), nn.Linear(hidden, 1))

    def forward(self, ids):                                 # b, 250
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))   # b, 250, 128
        for blk in self.blocks:
            x = blk(x)
        return self.head(x.mean(1)).squeeze(1)              # b, 128 -> b


def st1(batch, device):
    """batch: tokenised SMILES of 20 to 250 tokens (ids 1 .. 39,999),
    pre-padded with 0 to 250 as Keras' pad_sequences does (the lengths
    drawn once from a generator of seed 0), and one score per molecule."""
    seq, vocab = 250, 40000

    def make():
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(20, seq + 1, (batch, 1), generator=g)
        ids = torch.randint(1, vocab, (batch, seq), generator=g)
        ids = ids.masked_fill(torch.arange(seq).unsqueeze(0) < seq - lengths, 0)   # b, 250
        return ids.to(device), torch.randn(batch, device=device)
    return ST1(), make, _mse_loss, "adamw"


class LeViTLinearBN(nn.Module):
    """LeViT's Linear_BN: a Linear without bias and BatchNorm1d over the
    flattened b x n rows (weight initialised to bn_weight, 0 on the last
    layer of each residual branch), reshaped back to b, n, cout."""

    def __init__(self, cin, cout, bn_weight=1.0):
        super().__init__()
        self.fc = nn.Linear(cin, cout, bias=False)
        self.bn = nn.BatchNorm1d(cout)
        nn.init.constant_(self.bn.weight, bn_weight)

    def forward(self, x):                                   # b, n, cin
        y = self.fc(x)
        return self.bn(y.flatten(0, 1)).view_as(y)          # b, n, cout


def _levit_bias_index(res, res_q, stride):
    """LeViT's attention-bias index: for each query of a res_q x res_q grid
    (the res x res keys' grid subsampled by stride) and each key, the
    number of its absolute offset (|dy|, |dx|) among the distinct offsets.
    Returns the number of offsets and the res_q^2 x res^2 long index."""
    keys = [(i, j) for i in range(res) for j in range(res)]
    queries = [(i * stride, j * stride) for i in range(res_q) for j in range(res_q)]
    offsets, idx = {}, []
    for qi, qj in queries:
        for ki, kj in keys:
            idx.append(offsets.setdefault((abs(qi - ki), abs(qj - kj)), len(offsets)))
    return len(offsets), torch.tensor(idx).view(len(queries), len(keys))


class LeViTAttention(nn.Module):
    """LeViT's attention, plain (stride 1) or subsampling (stride 2, the
    queries from the tokens of every other row and column): k and v (and q
    when not subsampling) from one LeViTLinearBN, heads of key dim 16 and
    value dim ratio x 16; scores q k^T / 4 plus the learned per-head bias
    gathered every step from the heads x offsets parameter by the fixed
    index buffer (biases[:, idx]), softmax, times v; Hardswish and a
    LeViTLinearBN to the output width (BN weight 0 when the block is a
    residual branch)."""

    def __init__(self, cin, cout, key_dim, heads, ratio, res, stride=1):
        super().__init__()
        self.heads, self.kd, self.vd, self.res, self.stride = heads, key_dim, ratio * key_dim, res, stride
        self.res_q = (res - 1) // stride + 1
        if stride == 1:
            self.qkv = LeViTLinearBN(cin, heads * (2 * key_dim + self.vd))
        else:
            self.kv = LeViTLinearBN(cin, heads * (key_dim + self.vd))
            self.q = LeViTLinearBN(cin, heads * key_dim)
        self.proj = LeViTLinearBN(heads * self.vd, cout, bn_weight=0.0 if stride == 1 else 1.0)
        n_off, idx = _levit_bias_index(res, self.res_q, stride)
        self.biases = nn.Parameter(torch.zeros(heads, n_off))
        self.register_buffer("bias_idx", idx, persistent=False)   # n_q, n

    def forward(self, x):                                   # b, n, cin
        b, n, c = x.shape
        if self.stride == 1:
            q, k, v = self.qkv(x).view(b, n, self.heads, -1).split([self.kd, self.kd, self.vd], dim=3)
        else:
            k, v = self.kv(x).view(b, n, self.heads, -1).split([self.kd, self.vd], dim=3)
            xq = x.reshape(b, self.res, self.res, c)[:, ::self.stride, ::self.stride].reshape(b, -1, c)   # b, n_q, cin
            q = self.q(xq).view(b, xq.shape[1], self.heads, self.kd)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)   # b, h, n_q or n, d
        s = q @ k.transpose(-1, -2) * self.kd ** -0.5 + self.biases[:, self.bias_idx]   # b, h, n_q, n
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, q.shape[2], -1)   # b, n_q, h vd
        return self.proj(F.hardswish(a))                    # b, n_q, cout


class LeViTMLP(nn.Module):
    """LeViT's residual MLP: LeViTLinearBN to ratio x d, Hardswish,
    LeViTLinearBN back (BN weight 0)."""

    def __init__(self, d, ratio=2):
        super().__init__()
        self.fc1, self.fc2 = LeViTLinearBN(d, ratio * d), LeViTLinearBN(ratio * d, d, bn_weight=0.0)

    def forward(self, x):
        return self.fc2(F.hardswish(self.fc1(x)))


class LeViT(nn.Module):
    """A LeViT-128S-shaped classifier (Graham et al. 2021) at 224x224: a
    stem of four 3x3 stride-2 Conv2d (no bias) + BatchNorm2d, 3 -> 16 ->
    32 -> 64 -> 128, Hardswish between (224 -> 14), flattened to 196 tokens;
    stages of widths 128, 256, 384, depths 2, 3, 4, heads 4, 6, 8 of key
    dim 16 and value dim 32 (attention ratio 2), each block a residual
    LeViTAttention and a residual LeViTMLP (ratio 2); between stages a
    subsampling LeViTAttention (heads width / 16, value dim 64, queries
    from a stride-2 subsample: 14x14 -> 7x7 -> 4x4) to the next width,
    no residual, then a residual LeViTMLP; the mean over the tokens,
    BatchNorm1d and a Linear to 1,000 classes (no distillation head)."""

    def __init__(self, widths=(128, 256, 384), depths=(2, 3, 4), heads=(4, 6, 8), key_dim=16,
                 classes=1000, res=14):
        super().__init__()
        stem, c = [], 3
        for i, w in enumerate((widths[0] // 8, widths[0] // 4, widths[0] // 2, widths[0])):
            stem += [nn.Conv2d(c, w, 3, 2, 1, bias=False), nn.BatchNorm2d(w)]
            if i < 3:
                stem.append(nn.Hardswish())
            c = w
        self.stem = nn.Sequential(*stem)
        self.blocks = nn.ModuleList()
        for s, (w, depth, h) in enumerate(zip(widths, depths, heads)):
            if s > 0:
                down = LeViTAttention(widths[s - 1], w, key_dim, widths[s - 1] // key_dim, 4, res, stride=2)
                res = down.res_q
                self.blocks.append(down)
                self.blocks.append(LeViTMLP(w))
            for _ in range(depth):
                self.blocks.append(LeViTAttention(w, w, key_dim, h, 2, res))
                self.blocks.append(LeViTMLP(w))
        self.norm = nn.BatchNorm1d(widths[-1])
        self.head = nn.Linear(widths[-1], classes)

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.stem(x).flatten(2).transpose(1, 2)         # b, 196, 128
        for blk in self.blocks:
            y = blk(x)
            x = x + y if y.shape == x.shape else y          # the subsampling attention: no residual
        return self.head(self.norm(x.mean(1)))              # b, 16, 384 -> b, 1000


def levit(batch, device):
    return LeViT(), _images(batch, device), _cls_loss, "adamw"


def _random_walk_support(adj):
    """The transposed random-walk matrix (D^-1 A)^T of a dense n x n
    adjacency as DCRNN's supports hold it (every row has its self-loop,
    so no degree is 0), as a coalesced sparse COO tensor."""
    return (adj / adj.sum(1, keepdim=True)).t().to_sparse().coalesce()


class DCGRUCell(nn.Module):
    """DCRNN's DCGRU cell (the reference's DCGRUCell with
    dual_random_walk): its gates and candidate are diffusion convolutions
    of [input, state] (b, nodes, c): the signal laid out as nodes x (c b),
    for each support K = 2 diffusion steps by torch.sparse.mm (x1 = S x0,
    x2 = 2 S x1 - x0), the 1 + 2 x 2 = 5 signals stacked and laid out as
    b x nodes x 5c, a Linear to 2 x units (sigmoid: reset and update, bias
    1.0) and, on [input, r x state], another to units (tanh: the
    candidate); state' = u x state + (1 - u) x candidate."""

    def __init__(self, cin, units, supports=2, k=2):
        super().__init__()
        self.k, self.m = k, 1 + supports * k
        self.gates = nn.Linear((cin + units) * self.m, 2 * units)
        self.cand = nn.Linear((cin + units) * self.m, units)
        nn.init.constant_(self.gates.bias, 1.0)

    def diffuse(self, x, supports):                         # b, n, c
        b, n, c = x.shape
        # The diffusion runs in fp32 in both precisions: under autocast
        # torch.sparse.mm's operands are cast to bf16 (it goes through
        # addmm), for which the CPU's sparse-dense addmm has no kernel
        # (torch 1.13: "addmm_sparse_dense" not implemented for
        # 'BFloat16'); so autocast is off here and the dense operand cast
        # to fp32, the same sparse fp32 kernels on every device. The
        # Linears after it run in bf16.
        with torch.autocast(device_type=x.device.type, enabled=False):
            x0 = x.float().permute(1, 2, 0).reshape(n, c * b)   # n, c b
            xs = [x0]
            for sup in supports:
                prev, cur = x0, torch.sparse.mm(sup, x0)
                xs.append(cur)
                for _ in range(2, self.k + 1):
                    prev, cur = cur, 2 * torch.sparse.mm(sup, cur) - prev
                    xs.append(cur)
            return torch.stack(xs).view(self.m, n, c, b).permute(3, 1, 2, 0).reshape(b, n, c * self.m)   # b, n, 5c

    def forward(self, x, h, supports):                      # b, n, cin; b, n, units
        g = torch.sigmoid(self.gates(self.diffuse(torch.cat([x, h], dim=2), supports)))   # b, n, 2 units
        r, u = g.chunk(2, dim=2)
        c = torch.tanh(self.cand(self.diffuse(torch.cat([x, r * h], dim=2), supports)))   # b, n, units
        return u * h + (1 - u) * c


class DCRNN(nn.Module):
    """A DCRNN traffic forecaster (Li et al. 2018) on METR-LA's shapes: 207
    sensors, 12 steps of 2 features in, 12 steps of 1 out. The sensor graph
    (drawn once from a generator of seed 0): 207 self-loops of weight 1
    and 1,515 distinct directed edges of weight 0.1 to 1, 1,722 non-zeros
    as METR-LA's adjacency has; its two supports, the transposed
    random-walk matrices of A and of A^T, kept as sparse COO tensors in a
    plain attribute (not buffers: DDP's buffer broadcast takes dense
    tensors) and moved to the input's device on first use. A 2-layer
    encoder of DCGRUCells of 64 units over the 12 input steps, then a
    2-layer decoder from the encoder's states, fed zeros (the GO symbol)
    and then its own previous prediction (no teacher forcing), each step's
    top state by a Linear 64 -> 1; both unrolled in Python. Returns b, 12,
    207, 1."""

    def __init__(self, nodes=207, cin=2, cout=1, units=64, layers=2, k=2, horizon=12, nnz=1722):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        score = torch.rand(nodes, nodes, generator=g).fill_diagonal_(-1.0)
        pick = score.flatten().topk(nnz - nodes).indices     # 1,515 off-diagonal edges
        adj = torch.eye(nodes)
        adj.view(-1)[pick] = 0.1 + 0.9 * torch.rand(nnz - nodes, generator=g)
        self._supports = [_random_walk_support(adj), _random_walk_support(adj.t())]
        self.encoder = nn.ModuleList(DCGRUCell(cin if i == 0 else units, units, 2, k) for i in range(layers))
        self.decoder = nn.ModuleList(DCGRUCell(cout if i == 0 else units, units, 2, k) for i in range(layers))
        self.proj = nn.Linear(units, cout)
        self.units, self.cout, self.horizon = units, cout, horizon

    def supports(self, device):
        if self._supports[0].device != device:
            self._supports = [s.to(device) for s in self._supports]
        return self._supports

    def forward(self, x):                                   # b, 12, 207, 2
        sup = self.supports(x.device)
        b, t, n, _ = x.shape
        hs = [x.new_zeros(b, n, self.units) for _ in self.encoder]
        for step in range(t):
            inp = x[:, step]
            for i, cell in enumerate(self.encoder):
                hs[i] = inp = cell(inp, hs[i], sup)
        out, outs = x.new_zeros(b, n, self.cout), []
        for step in range(self.horizon):
            inp = out
            for i, cell in enumerate(self.decoder):
                hs[i] = inp = cell(inp, hs[i], sup)
            out = self.proj(inp)                            # b, 207, 1
            outs.append(out)
        return torch.stack(outs, 1)                         # b, 12, 207, 1


def dcrnn(batch, device):
    """batch: 12 steps of the 207 sensors' (standardised) speed and the
    time of day in [0, 1), and the next 12 steps' speed; MAE loss (the
    reference's masked MAE with nothing missing)."""
    def make():
        speed = torch.randn(batch, 24, 207, 1, device=device)
        tod = (torch.arange(24, device=device).view(1, 24, 1, 1) / 288.0).expand(batch, 24, 207, 1)
        return torch.cat([speed[:, :12], tod[:, :12]], dim=3), speed[:, 12:].contiguous()
    return DCRNN(), make, _l1_loss, "adam"


# -- thirty-second round -------------------------------------------------------
# Models added after the thirty-first round: CANDLE's P1B1 gene-expression
# autoencoder (dense 60,483 -> 2,000 -> 600 -> 100 -> 600 -> 2,000 ->
# 60,483, two GEMMs of 121M weights at its ends, a sigmoid output under
# MSE), CANDLE's Attn drug-response classifier (a softmax over 1,000 dense
# outputs as an elementwise attention gate, Keras-order Dense, ReLU,
# BatchNorm1d and dropout down to 2 classes at a batch of a thousand), a
# MobileNetV3-Large written out (inverted residuals with depthwise 3x3 and
# 5x5 convolutions, squeeze-excitation by adaptive average pooling and a
# hard-sigmoid gate, ReLU or Hardswish per block), a
# ConvNeXt-V2-Nano-shaped classifier (the channels-first LayerNorm written
# out by mean, pow and sqrt, Global Response Normalization by a vector
# norm over the positions) and an ESM-2-shaped protein masked language
# model (33 tokens, token dropout, rotary embeddings, scaled dot-product
# attention under a key-padding mask over sequences of 200 to 1,024
# tokens, the loss on the masked residues alone by ignore_index).

class P1B1(nn.Module):
    """CANDLE's P1B1 gene-expression autoencoder (Pilot1 P1B1,
    p1b1_baseline_keras2.py's 'ae' model) on b x 60,483 expression values
    min-max scaled to [0, 1]: the encoder Dense 2,000 + ReLU, Dense 600 +
    ReLU and the latent Dense 100 + ReLU; the decoder the encoder's widths
    reversed, Dense 600 + ReLU, Dense 2,000 + ReLU, and Dense 60,483 +
    sigmoid. No dropout or batch normalisation (the defaults drop 0 and
    batch_normalization False); weights Glorot-uniform and biases zero, as
    the reference initialises them. Returns b, 60,483."""

    def __init__(self, genes=60483, dense=(2000, 600), latent=100):
        super().__init__()
        widths = [genes, *dense, latent, *reversed(dense)]   # 60483, 2000, 600, 100, 600, 2000
        layers = []
        for cin, cout in zip(widths[:-1], widths[1:]):
            layers += [nn.Linear(cin, cout), nn.ReLU(inplace=True)]
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(widths[-1], genes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 60483
        return torch.sigmoid(self.out(self.body(x)))        # b, 2000 .. 100 .. 2000 -> b, 60483


def p1b1(batch, device):
    """batch: expression profiles of 60,483 genes in [0, 1); the target is
    the input itself (MSE, CANDLE's default loss for P1B1)."""
    def make():
        x = torch.rand(batch, 60483, device=device)
        return x, x
    return P1B1(), make, _mse_loss, "adam"


class CandleAttn(nn.Module):
    """CANDLE's Attn drug-response classifier (Pilot1 Attn,
    attn_baseline_keras2.py's build_attention_model with the layer list of
    attn_default_model.txt) on b x 6,212 min-max scaled features: Dense
    1,000 + ReLU and BatchNorm1d (the trunk); from it two Dense 1,000, one
    + ReLU and BatchNorm1d (the values) and one + softmax over its 1,000
    outputs (the attention), multiplied elementwise; then Dense 500, 250,
    125, 60 and 30, each + ReLU, BatchNorm1d and dropout 0.2 (Keras' order:
    the activation before the normalisation); Dense to 2 classes
    (response or not; the softmax in the loss). BatchNorm1d with Keras'
    eps 1e-3 and momentum 0.99 (PyTorch's 0.01); weights Glorot-uniform,
    biases zero. Returns b, 2."""

    def __init__(self, features=6212, dense=(1000, 1000, 1000, 500, 250, 125, 60, 30), classes=2, drop=0.2):
        super().__init__()
        def bn(c):
            return nn.BatchNorm1d(c, eps=1e-3, momentum=0.01)
        self.trunk, self.trunk_bn = nn.Linear(features, dense[0]), bn(dense[0])
        self.value, self.value_bn = nn.Linear(dense[0], dense[1]), bn(dense[1])
        self.attn = nn.Linear(dense[0], dense[2])
        layers, c = [], dense[2]
        for w in dense[3:]:
            layers += [nn.Linear(c, w), nn.ReLU(inplace=True), bn(w), nn.Dropout(drop)]
            c = w
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(c, classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 6212
        h = self.trunk_bn(F.relu(self.trunk(x)))            # b, 1000
        a = self.value_bn(F.relu(self.value(h)))            # b, 1000
        p = self.attn(h).softmax(-1)                        # b, 1000, rows sum to 1
        return self.out(self.body(a * p))                   # b, 500 .. 30 -> b, 2


def candleattn(batch, device):
    """batch: 6,212 features per (cell line, drug) pair in [0, 1) and a
    binary response label (AUC below or above the threshold)."""
    def make():
        return (torch.rand(batch, 6212, device=device),
                torch.randint(0, 2, (batch,), device=device))
    return CandleAttn(), make, _cls_loss, "sgd_momentum"


def _cba(cin, cout, k, stride=1, groups=1, act=None):
    """A k x k Conv2d without bias ('same' padding), BatchNorm2d with
    MobileNetV3's eps 1e-3 and momentum 0.01, and act (a module class
    taking inplace) if given."""
    layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout, eps=1e-3, momentum=0.01)]
    if act is not None:
        layers.append(act(inplace=True))
    return nn.Sequential(*layers)


class MBV3Block(nn.Module):
    """MobileNetV3's inverted residual (torchvision's InvertedResidual and
    SqueezeExcitation written out): where the expansion width differs from
    the input a 1x1 Conv2d to it with BatchNorm2d and the activation (ReLU
    or Hardswish); a depthwise k x k Conv2d of the stride with BatchNorm2d
    and the activation; where the table has it squeeze-excitation (the
    adaptive average pool to 1x1, a 1x1 Conv2d to the expansion width / 4
    rounded to a multiple of 8, ReLU, a 1x1 Conv2d back, hard-sigmoid, the
    map scaled per channel); a 1x1 Conv2d to the output width with
    BatchNorm2d and no activation; the input added where the stride is 1
    and the widths match."""

    def __init__(self, cin, exp, cout, k, stride, se, act):
        super().__init__()
        self.expand = _cba(cin, exp, 1, act=act) if exp != cin else None
        self.dw = _cba(exp, exp, k, stride, groups=exp, act=act)
        self.se = None
        if se:
            r = _round_width(exp // 4)
            self.se = nn.Sequential(nn.Conv2d(exp, r, 1), nn.ReLU(inplace=True), nn.Conv2d(r, exp, 1))
        self.project = _cba(exp, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):                                   # b, cin, h, w
        y = x if self.expand is None else self.expand(x)    # b, exp, h, w
        y = self.dw(y)                                      # b, exp, h / s, w / s
        if self.se is not None:
            y = y * F.hardsigmoid(self.se(F.adaptive_avg_pool2d(y, 1)))   # gate b, exp, 1, 1
        y = self.project(y)                                 # b, cout, h / s, w / s
        return x + y if self.residual else y


class MobileNetV3(nn.Module):
    """MobileNetV3-Large (Howard et al. 2019) at 224x224, 1,000 classes,
    written out rather than torchvision's: a 3x3 stride-2 Conv2d to 16
    with BatchNorm2d and Hardswish; the 15 MBV3Blocks of the paper's table
    (kernel, expansion width, output width, SE, activation, stride: outputs
    16, 24, 40, 80, 112 and 160 at 112 down to 7, expansion widths 16 to
    960, SE in 8 blocks, ReLU in the first 6 and Hardswish after); a 1x1
    Conv2d to 960 with BatchNorm2d and Hardswish; the adaptive average pool,
    Linear 960 -> 1,280 + Hardswish, dropout 0.2 and a Linear head.
    torchvision's initialisation: Conv2d weights Kaiming-normal (fan out),
    Linear weights normal of std 0.01, biases zero."""

    CFG = ((3, 16, 16, 0, "RE", 1),
           (3, 64, 24, 0, "RE", 2), (3, 72, 24, 0, "RE", 1),
           (5, 72, 40, 1, "RE", 2), (5, 120, 40, 1, "RE", 1), (5, 120, 40, 1, "RE", 1),
           (3, 240, 80, 0, "HS", 2), (3, 200, 80, 0, "HS", 1), (3, 184, 80, 0, "HS", 1),
           (3, 184, 80, 0, "HS", 1), (3, 480, 112, 1, "HS", 1), (3, 672, 112, 1, "HS", 1),
           (5, 672, 160, 1, "HS", 2), (5, 960, 160, 1, "HS", 1), (5, 960, 160, 1, "HS", 1))

    def __init__(self, classes=1000, last=1280, drop=0.2):
        super().__init__()
        layers, c = [_cba(3, 16, 3, 2, act=nn.Hardswish)], 16
        for k, exp, cout, se, nl, stride in self.CFG:
            layers.append(MBV3Block(c, exp, cout, k, stride, se, nn.Hardswish if nl == "HS" else nn.ReLU))
            c = cout
        layers.append(_cba(c, 6 * c, 1, act=nn.Hardswish))   # 160 -> 960
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(6 * c, last), nn.Hardswish(inplace=True),
                                        nn.Dropout(drop, inplace=True), nn.Linear(last, classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 3, 224, 224
        x = F.adaptive_avg_pool2d(self.features(x), 1).flatten(1)   # b, 960, 7, 7 -> b, 960
        return self.classifier(x)                           # b, 1000


def mobilenetv3(batch, device):
    """ImageNet images and labels."""
    return MobileNetV3(), _images(batch, device), _cls_loss, "sgd_momentum"


class ChannelsFirstLN(nn.Module):
    """ConvNeXt-V2's LayerNorm of data_format "channels_first" as the
    reference writes it out (the stem and the downsampling layers): over
    the channels of b, c, h, w, u the mean, s the mean of (x - u)^2, (x -
    u) / sqrt(s + 1e-6), times a per-channel weight plus a bias."""

    def __init__(self, c, eps=1e-6):
        super().__init__()
        self.weight, self.bias = nn.Parameter(torch.ones(c)), nn.Parameter(torch.zeros(c))
        self.eps = eps

    def forward(self, x):                                   # b, c, h, w
        u = x.mean(1, keepdim=True)                         # b, 1, h, w
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class GlobalResponseNorm(nn.Module):
    """ConvNeXt-V2's Global Response Normalization (GRN) on a channels-last
    b, h, w, c map: Gx the L2 norm over the positions (h and w, by
    torch.linalg.vector_norm), Nx = Gx / (the mean of Gx over the channels
    + 1e-6), and gamma (x Nx) + beta + x with per-channel gamma and beta
    initialised to zero (the block starts as if GRN were absent)."""

    def __init__(self, c):
        super().__init__()
        self.gamma = nn.Parameter(torch.zeros(1, 1, 1, c))
        self.beta = nn.Parameter(torch.zeros(1, 1, 1, c))

    def forward(self, x):                                   # b, h, w, c
        gx = torch.linalg.vector_norm(x, 2, dim=(1, 2), keepdim=True)   # b, 1, 1, c
        nx = gx / (gx.mean(-1, keepdim=True) + 1e-6)
        return self.gamma * (x * nx) + self.beta + x


class ConvNeXtV2Block(nn.Module):
    """ConvNeXt-V2's block: a depthwise 7x7 Conv2d, the map permuted to
    channels-last, LayerNorm (fp32, eps 1e-6), Linear to 4 x the channels,
    GELU, GlobalResponseNorm, Linear back, permuted back and added to the
    input (no layer scale in V2; stochastic depth left out)."""

    def __init__(self, c):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.ln = Fp32LayerNorm(c, eps=1e-6)
        self.fc1, self.fc2 = nn.Linear(c, 4 * c), nn.Linear(4 * c, c)
        self.grn = GlobalResponseNorm(4 * c)

    def forward(self, x):                                   # b, c, h, w
        y = self.dw(x).permute(0, 2, 3, 1)                  # b, h, w, c
        y = self.fc2(self.grn(F.gelu(self.fc1(self.ln(y)))))   # b, h, w, 4c -> b, h, w, c
        return x + y.permute(0, 3, 1, 2)


class ConvNeXtV2(nn.Module):
    """A ConvNeXt-V2-Nano-shaped classifier (Woo et al. 2023) at 224x224,
    1,000 classes: a 4x4 stride-4 Conv2d stem to 80 and ChannelsFirstLN
    (56x56); stages of 2, 2, 8 and 2 ConvNeXtV2Blocks at 80, 160, 320 and
    640 channels, each after the first entered by ChannelsFirstLN and a 2x2
    stride-2 Conv2d (28, 14, 7); the mean over the positions, LayerNorm
    (fp32, eps 1e-6) and a Linear head. Conv2d and Linear weights
    truncated-normal of std 0.02, biases zero."""

    def __init__(self, depths=(2, 2, 8, 2), dims=(80, 160, 320, 640), classes=1000):
        super().__init__()
        layers = [nn.Conv2d(3, dims[0], 4, stride=4), ChannelsFirstLN(dims[0])]
        for i, (n, w) in enumerate(zip(depths, dims)):
            if i:
                layers += [ChannelsFirstLN(dims[i - 1]), nn.Conv2d(dims[i - 1], w, 2, stride=2)]
            layers += [ConvNeXtV2Block(w) for _ in range(n)]
        self.body = nn.Sequential(*layers)
        self.norm = Fp32LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], classes)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.body(x)                                    # b, 640, 7, 7
        return self.head(self.norm(x.mean((2, 3))))         # b, 1000


def convnextv2(batch, device):
    """ImageNet images and labels."""
    return ConvNeXtV2(), _images(batch, device), _cls_loss, "adamw"


class ESMLayer(nn.Module):
    """ESM-2's transformer layer (esm's TransformerLayer with rotary
    embeddings), pre-LN: LayerNorm (fp32); q, k and v Linears with biases,
    heads of 16; rotary embeddings on q and k (rotate-half, _rope, the
    angle tables cast to q's dtype); attention by scaled_dot_product_attention
    under the b, 1, 1, t key-padding mask (_band_attention); the output
    Linear and the residual; LayerNorm, Linear to ff, GELU, Linear back and
    the residual. No dropout (ESM-2 trains without)."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x, cos, sin, allow):                  # b, t, d; t, 16; t, 16; b, 1, 1, t
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = (m(h).view(b, t, self.heads, -1).transpose(1, 2) for m in (self.q, self.k, self.v))   # b, 20, t, 16
        cos, sin = cos.to(q.dtype), sin.to(q.dtype)
        a = _band_attention(_rope(q, cos, sin), _rope(k, cos, sin), v, allow)   # b, 20, t, 16
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class ESM2(nn.Module):
    """An ESM-2-shaped protein masked language model (Lin et al. 2023, esm's
    ESM2 at the 8M configuration) over sequences padded to 1,024: a 33 x
    320 token embedding (padding row <pad> = 1); token dropout as ESM-2
    applies it (the <mask> embeddings zeroed, the rest scaled by (1 - 0.15
    x 0.8) / (1 - each sequence's observed share of <mask>), the padding
    zeroed); 6 ESMLayers of 320 (20 heads of 16, FFN 1,280) with rotary
    angles of base 10,000 (fixed buffers) and the key-padding mask from the
    <pad> ids; the final LayerNorm; the LM head (Linear 320 -> 320, GELU,
    LayerNorm) and the logits over the 33 tokens by the tied embedding plus
    a bias, at every position. Linear and embedding weights normal of std
    0.02 (the padding row zero). Returns b, t, 33."""

    def __init__(self, vocab=33, d=320, layers=6, heads=20, ff=1280, seq=1024, pad=1, mask=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, padding_idx=pad)
        self.layers = nn.ModuleList(ESMLayer(d, heads, ff) for _ in range(layers))
        self.ln_after = Fp32LayerNorm(d)
        self.lm_dense, self.lm_ln = nn.Linear(d, d), Fp32LayerNorm(d)
        self.lm_bias = nn.Parameter(torch.zeros(vocab))
        self.pad, self.mask = pad, mask
        normal_linears_embeddings(self)
        with torch.no_grad():
            self.tok.weight[pad].zero_()
        hd = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(seq).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)                 # 1024, 16
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, ids):                                 # b, t
        t = ids.shape[1]
        keep = ids.ne(self.pad)                             # b, t: not padding
        masked = ids.eq(self.mask)
        x = self.tok(ids).masked_fill(masked.unsqueeze(-1), 0.0)   # b, t, 320
        observed = masked.sum(-1).to(x.dtype) / keep.sum(-1)   # b
        x = x * (1 - 0.15 * 0.8) / (1 - observed)[:, None, None]
        x = x * keep.unsqueeze(-1).to(x.dtype)
        allow = keep[:, None, None, :]                      # b, 1, 1, t
        cos, sin = self.cos[:t], self.sin[:t]
        for layer in self.layers:
            x = layer(x, cos, sin, allow)
        h = self.lm_ln(F.gelu(self.lm_dense(self.ln_after(x))))   # b, t, 320
        return F.linear(h, self.tok.weight, self.lm_bias)   # b, t, 33


def esm(batch, device):
    """batch: protein sequences of 200 to 1,024 tokens, <cls> (0), residues
    of the 20 standard amino acids (ids 4 .. 23) and <eos> (2), padded at
    the end with <pad> (1) to 1,024; lengths, residues and masking drawn
    once from a generator of seed 0, so fixed for the batch. Of each
    sequence's residues round(15%) are chosen, 80% of those replaced by
    <mask> (32), 10% by a random residue and 10% left; the targets are the
    original residues there and -100 elsewhere (cross_entropy's default
    ignore_index, so the loss is on the chosen positions alone)."""
    seq = 1024

    def make():
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(200, seq + 1, (batch, 1), generator=g)   # b, 1, <cls> and <eos> included
        pos = torch.arange(seq).unsqueeze(0)                # 1, t
        ids = torch.randint(4, 24, (batch, seq), generator=g)
        ids = ids.masked_fill(pos == 0, 0).masked_fill(pos == lengths - 1, 2).masked_fill(pos >= lengths, 1)
        residue = (pos > 0) & (pos < lengths - 1)           # b, t
        score = torch.rand(batch, seq, generator=g).masked_fill(~residue, 2.0)
        chosen = score.argsort(1).argsort(1) < (0.15 * (lengths - 2)).round().long()   # b, t: the lowest scores
        u = torch.rand(batch, seq, generator=g)
        swap = torch.randint(4, 24, (batch, seq), generator=g)
        inp = torch.where(chosen & (u < 0.9), swap, ids).masked_fill(chosen & (u < 0.8), 32)
        target = ids.masked_fill(~chosen, -100)
        return inp.to(device), target.to(device)
    return ESM2(), make, _lm_loss, "adamw"


# -- thirty-third round --------------------------------------------------------
# Models added after the thirty-second round: CANDLE's P3B2 character-level
# text generator (a 2-layer nn.LSTM of 256 over 20 one-hot characters of a
# 100-character alphabet, only the last step of the top layer scored, at a
# batch of a thousand), CANDLE's P2B1 molecular-frame autoencoder (dense
# 2,640 -> 512 -> 256 -> 128 -> 64 and back with ELU, BatchNorm1d, dropout
# and a tanh latent at a batch of thousands), a PVT-v2-b1-shaped classifier
# (overlapping strided-Conv2d patch embeddings, spatial-reduction attention
# whose keys and values come from a strided Conv2d and LayerNorm, the same
# 49 keys at every stage, scaled dot-product attention, Mix-FFN with a
# depthwise 3x3 convolution), a GPT-J-shaped decoder (one LayerNorm feeding
# attention and MLP in parallel, interleaved rotary embeddings on half of
# each head by strided slices, stack and flatten, a 50,400-token untied
# head with bias) and a BERT4Rec sequential recommender (left-padded item
# histories under a key-padding mask through nn.TransformerEncoderLayer,
# 15% of the items replaced by a mask token, logits over the 40,002-row
# tied item table at every position and the loss on the masked ones alone
# by ignore_index).

class P3B2(nn.Module):
    """CANDLE's P3B2 character-level text generator (Pilot3 P3B2,
    p3b2_baseline_keras2.py's char_rnn) on windows of 20 characters
    one-hot over a 100-character alphabet (b x 20 x 100 floats, as the
    reference builds X): a stack of 2 LSTMs of 256 (one nn.LSTM, batch
    first, no dropout: the defaults' dropout and recurrent_dropout are 0),
    the lower returning its sequence and the top only its last step (Keras'
    return_sequences False: h[:, -1]); a Dense to the 100 characters (the
    softmax in the loss: the next character). Keras' initialisation: input
    kernels Glorot-uniform, recurrent kernels orthogonal, biases zero but
    the forget gate's 1 (unit_forget_bias; in b_ih, b_hh zero); the Dense
    Glorot-uniform, bias zero. Returns b, 100."""

    def __init__(self, chars=100, hidden=256, layers=2):
        super().__init__()
        self.rnn = nn.LSTM(chars, hidden, layers, batch_first=True)
        self.out = nn.Linear(hidden, chars)
        with torch.no_grad():
            for name, p in self.rnn.named_parameters():
                if name.startswith("weight_ih"):            # 1024, 100 or 1024, 256
                    nn.init.xavier_uniform_(p)
                elif name.startswith("weight_hh"):          # 1024, 256
                    nn.init.orthogonal_(p)
                else:                                       # 1024: gates i, f, g, o
                    p.zero_()
                    if name.startswith("bias_ih"):
                        p[hidden:2 * hidden].fill_(1.0)
        nn.init.xavier_uniform_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x):                                   # b, 20, 100
        h, _ = self.rnn(x)                                  # b, 20, 256
        return self.out(h[:, -1])                           # b, 256 -> b, 100


def p3b2(batch, device):
    """batch: 20-character windows of pathology-report text one-hot over
    100 characters (floats) and the index of the character that follows
    each window. The reference trains with RMSprop, which record.py's
    make_opt does not build: recorded with Adam, whose update holds
    RMSprop's (a running mean of the squared gradient, its square root, a
    division) plus a first moment."""
    seq, chars = 20, 100

    def make():
        ids = torch.randint(0, chars, (batch, seq), device=device)
        return (F.one_hot(ids, chars).float(),                 # b, 20, 100
                torch.randint(0, chars, (batch,), device=device))
    return P3B2(), make, _cls_loss, "adam"


class P2B1(nn.Module):
    """CANDLE's P2B1 molecular-frame autoencoder (Pilot2 P2B1, the dense
    molecular autoencoder of p2b1_AE_models.py's dense_auto) on one lipid
    and its 10 nearest neighbours per row, flattened as the reference's
    molecular_input_dim = beads x features x (neighbours + 1): 12 beads x
    20 features (3 relative coordinates, 5 type flags, 12 further fields)
    x 11 molecules = 2,640 values. Encoder Dense 512, 256 and 128, each +
    ELU, BatchNorm1d and dropout 0.5; the latent Dense 64 + tanh and
    BatchNorm1d; decoder Dense 128, 256 and 512, each + ELU, BatchNorm1d
    and dropout; a linear Dense back to 2,640 (Keras' order: the activation
    before the normalisation). BatchNorm1d with Keras' eps 1e-3 and
    momentum 0.99 (PyTorch's 0.01); weights Glorot-uniform, biases zero.
    The reference's L2 kernel regulariser is left out. Returns b, 2,640."""

    def __init__(self, features=2640, hidden=(512, 256, 128), latent=64, drop=0.5):
        super().__init__()
        def bn(c):
            return nn.BatchNorm1d(c, eps=1e-3, momentum=0.01)
        enc, c = [], features
        for w in hidden:
            enc += [nn.Linear(c, w), nn.ELU(), bn(w), nn.Dropout(drop)]
            c = w
        enc += [nn.Linear(c, latent), nn.Tanh(), bn(latent)]
        dec, c = [], latent
        for w in reversed(hidden):
            dec += [nn.Linear(c, w), nn.ELU(), bn(w), nn.Dropout(drop)]
            c = w
        dec.append(nn.Linear(c, features))
        self.encoder, self.decoder = nn.Sequential(*enc), nn.Sequential(*dec)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 2640
        return self.decoder(self.encoder(x))                # b, 512 .. 64 .. 512 -> b, 2640


def p2b1(batch, device):
    """batch: flattened neighbourhoods of 2,640 normalised values (a
    molecule of a frame per row); the target is the input itself (MSE).
    Trained with SGD and momentum (CANDLE's default file names Adam)."""
    def make():
        x = torch.randn(batch, 2640, device=device)
        return x, x
    return P2B1(), make, _mse_loss, "sgd_momentum"


class PVTv2Attention(nn.Module):
    """PVT-v2's spatial-reduction attention (timm's pvt_v2 Attention): q
    by a Linear from every token; where the ratio R > 1 the tokens laid
    back on their h x w grid, reduced by a Conv2d of kernel and stride R
    and LayerNorm-ed (fp32); k and v by one Linear from those (from every
    token where R = 1); heads of 64; scaled_dot_product_attention
    (_attention); the output Linear. No dropout."""

    def __init__(self, d, heads, sr):
        super().__init__()
        self.q, self.kv, self.proj = nn.Linear(d, d), nn.Linear(d, 2 * d), nn.Linear(d, d)
        self.sr = nn.Conv2d(d, d, sr, sr) if sr > 1 else None
        self.norm = Fp32LayerNorm(d) if sr > 1 else None
        self.heads = heads

    def forward(self, x, h, w):                             # b, n, d (n = h w)
        b, n, d = x.shape
        q = self.q(x).view(b, n, self.heads, d // self.heads).transpose(1, 2)   # b, heads, n, 64
        if self.sr is not None:
            r = self.sr(x.transpose(1, 2).reshape(b, d, h, w))      # b, d, h / R, w / R (7 x 7)
            x = self.norm(r.flatten(2).transpose(1, 2))             # b, 49, d
        k, v = self.kv(x).view(b, -1, 2, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)   # b, heads, 49, 64 each
        a = _attention(q, k, v)                             # b, heads, n, 64
        return self.proj(a.transpose(1, 2).reshape(b, n, d))


class PVTv2Block(nn.Module):
    """PVT-v2's block, pre-LN: x + attention(LN(x)), then x + Mix-FFN(LN(x))
    (MixFFN: Linear to ratio x d, the depthwise 3x3 Conv2d on the h x w
    grid, GELU, Linear back). LayerNorms fp32 of eps 1e-6; drop path left
    out."""

    def __init__(self, d, heads, sr, ratio):
        super().__init__()
        self.ln1, self.attn = Fp32LayerNorm(d, eps=1e-6), PVTv2Attention(d, heads, sr)
        self.ln2, self.ffn = Fp32LayerNorm(d, eps=1e-6), MixFFN(d, ratio * d)

    def forward(self, x, h, w):                             # b, n, d
        x = x + self.attn(self.ln1(x), h, w)
        return x + self.ffn(self.ln2(x), h, w)


class PVTv2(nn.Module):
    """A PVT-v2-b1-shaped classifier (Wang et al. 2022, timm's
    pvt_v2_b1) at 224x224, 1,000 classes: 4 stages, each an overlapping
    patch embedding (a Conv2d of kernel 7 and stride 4 for the first, 3 and
    stride 2 after, padding k // 2; LayerNorm over the channels of the
    flattened tokens), 2 PVTv2Blocks and a LayerNorm (eps 1e-6), the tokens
    laid back as b, c, h, w for the next stage; widths 64, 128, 320, 512 at
    56x56, 28x28, 14x14, 7x7 (3,136, 784, 196, 49 tokens), heads 1, 2, 5, 8
    of 64, reduction ratios 8, 4, 2, 1 (49 keys and values at every stage),
    MLP ratios 8, 8, 4, 4; the mean over the positions and a Linear head.
    timm's initialisation: Linear weights truncated-normal of std 0.02,
    Conv2d weights normal of std sqrt(2 / fan out) with fan out k^2 x
    channels out / groups, biases zero."""

    def __init__(self, widths=(64, 128, 320, 512), depths=(2, 2, 2, 2), heads=(1, 2, 5, 8),
                 srs=(8, 4, 2, 1), ratios=(8, 8, 4, 4), classes=1000):
        super().__init__()
        self.patch, self.patch_ln = nn.ModuleList(), nn.ModuleList()
        self.stages, self.norms = nn.ModuleList(), nn.ModuleList()
        c = 3
        for i, (w, n, h, sr, r) in enumerate(zip(widths, depths, heads, srs, ratios)):
            k, s = (7, 4) if i == 0 else (3, 2)
            self.patch.append(nn.Conv2d(c, w, k, s, k // 2))
            self.patch_ln.append(Fp32LayerNorm(w))
            self.stages.append(nn.ModuleList(PVTv2Block(w, h, sr, r) for _ in range(n)))
            self.norms.append(Fp32LayerNorm(w, eps=1e-6))
            c = w
        self.head = nn.Linear(widths[-1], classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels // m.groups
                nn.init.normal_(m.weight, 0.0, math.sqrt(2.0 / fan_out))
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 3, 224, 224
        for patch, patch_ln, blocks, norm in zip(self.patch, self.patch_ln, self.stages, self.norms):
            y = patch(x)                                    # b, c, h, w: 64 x 56^2 .. 512 x 7^2
            b, c, h, w = y.shape
            t = patch_ln(y.flatten(2).transpose(1, 2))      # b, h w, c
            for blk in blocks:
                t = blk(t, h, w)
            x = norm(t).transpose(1, 2).reshape(b, c, h, w)
        return self.head(x.mean((2, 3)))                    # b, 512, 7, 7 -> b, 1000


def pvtv2(batch, device):
    """ImageNet images and labels."""
    return PVTv2(), _images(batch, device), _cls_loss, "adamw"


class GPTJBlock(nn.Module):
    """A GPT-J layer (HF's GPTJBlock), a parallel residual under one
    LayerNorm (fp32): h = LN(x), x + attention(h) + MLP(h). Attention: q, k, v
    and output Linears without bias, heads of 64; rotary embeddings on the
    first 32 of each head's 64 dims in GPT-J's interleaved form
    (rotate_every_two: the odd and even dims by strided slices, stacked as
    (-odd, even) and flattened, against angle tables whose every angle is
    repeated twice), the other 32 passed through and concatenated; causal
    scaled_dot_product_attention (_causal_attention). MLP: Linear to 4 x
    d, GELU (tanh approximation, GPT-J's gelu_new), Linear back, with
    biases. No dropout (GPT-J's are 0)."""

    def __init__(self, d, heads, rot):
        super().__init__()
        self.ln = Fp32LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.fc_in, self.fc_out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads, self.rot = heads, rot

    def rotary(self, x, cos, sin):                          # b, 16, t, 64; t, 32; t, 32
        r, keep = x[..., :self.rot], x[..., self.rot:]      # b, 16, t, 32 each
        turned = torch.stack((-r[..., 1::2], r[..., ::2]), dim=-1).flatten(-2)   # b, 16, t, 16, 2 -> b, 16, t, 32
        return torch.cat((r * cos + turned * sin, keep), dim=-1)   # b, 16, t, 64

    def forward(self, x, cos, sin):                         # b, t, 1024; t, 32; t, 32
        b, t, d = x.shape
        h = self.ln(x)
        q, k, v = (m(h).view(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for m in (self.q, self.k, self.v))       # b, 16, t, 64 each
        cos, sin = cos.to(q.dtype), sin.to(q.dtype)
        a = _causal_attention(self.rotary(q, cos, sin), self.rotary(k, cos, sin), v)   # b, 16, t, 64
        a = self.o(a.transpose(1, 2).reshape(b, t, d))      # b, t, 1024
        return x + a + self.fc_out(F.gelu(self.fc_in(h), approximate="tanh"))


class GPTJ(nn.Module):
    """A GPT-J-shaped decoder (Wang and Komatsuzaki 2021; HF's
    GPTJForCausalLM) at small scale: a 50,400 x 1,024 token embedding and
    no position embeddings, 8 GPTJBlocks of 1,024 (16 heads of 64, rotary
    dims 32 of 64: GPT-J-6B rotates 64 of its 256, base 10,000, the angle
    tables fixed buffers of 1,024 x 32), the final LayerNorm (fp32) and an
    untied LM head Linear 1,024 -> 50,400 with bias. Linear and embedding weights
    normal of std 0.02. Returns b, t, 50,400."""

    def __init__(self, vocab=50400, d=1024, layers=8, heads=16, rot=32, seq=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(GPTJBlock(d, heads, rot) for _ in range(layers))
        self.ln_f = Fp32LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        normal_linears_embeddings(self)
        inv = 1.0 / (10000 ** (torch.arange(0, rot, 2).float() / rot))   # 16
        ang = torch.outer(torch.arange(seq).float(), inv).repeat_interleave(2, dim=-1)   # 1024, 32: t0 t0 t1 t1 ..
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, idx):                                 # b, t
        t = idx.shape[1]
        x = self.wte(idx)                                   # b, t, 1024
        for blk in self.blocks:
            x = blk(x, self.cos[:t], self.sin[:t])
        return self.head(self.ln_f(x))                      # b, t, 50400


def gptj(batch, device):
    """batch: 1,024 token ids and next-token targets over 50,400 tokens
    (the same sequence on both devices, as the other decoders here)."""
    return GPTJ(), _tokens(batch, 1024, 50400, device), _lm_loss, "adamw"


class BERT4Rec(nn.Module):
    """BERT4Rec (Sun et al. 2019) over histories of 200 items: an item
    table of 40,002 rows x 256 (0 padding, 1 .. 40,000 items, 40,001 the
    [mask] token), a learned position embedding of 200, LayerNorm (fp32)
    and dropout 0.1; 2 bidirectional post-LN nn.TransformerEncoderLayers
    (batch first, 4 heads of 64, FFN 1,024 GELU, dropout 0.1) under the
    key-padding mask of the padding ids; the output transform (Linear 256
    -> 256, GELU, LayerNorm in fp32) and logits over all 40,002 rows by the
    tied item table plus a bias, at every position. Linear and embedding
    weights normal of std 0.02 (the padding row zero). Returns b, 200,
    40,002."""

    def __init__(self, items=40000, seq=200, d=256, layers=2, heads=4, drop=0.1):
        super().__init__()
        vocab = items + 2                                   # 40,002
        self.item = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Embedding(seq, d)
        self.ln, self.drop = Fp32LayerNorm(d), nn.Dropout(drop)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=drop, activation="gelu", batch_first=True)
            for _ in range(layers))
        self.dense, self.dense_ln = nn.Linear(d, d), Fp32LayerNorm(d)
        self.bias = nn.Parameter(torch.zeros(vocab))
        normal_linears_embeddings(self)
        with torch.no_grad():
            self.item.weight[0].zero_()

    def forward(self, ids):                                 # b, 200
        pad = ids.eq(0)                                     # b, 200: True at padding (not attended to)
        x = self.item(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        x = self.drop(self.ln(x))                           # b, 200, 256
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=pad)          # b, 200, 256
        h = self.dense_ln(F.gelu(self.dense(x)))            # b, 200, 256
        return F.linear(h, self.item.weight, self.bias)     # b, 200, 40002


def bert4rec(batch, device):
    """batch: item histories of 20 to 200 items (ids 1 .. 40,000),
    left-padded with 0 to 200; lengths, items and masking drawn once from
    a generator of seed 0, so fixed for the batch. Of each history's items
    round(15%) are replaced by [mask] (40,001); the targets are the
    original items there and -100 elsewhere (cross_entropy's default
    ignore_index, so the loss is on the masked positions alone)."""
    seq, items = 200, 40000

    def make():
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(20, seq + 1, (batch, 1), generator=g)   # b, 1
        pos = torch.arange(seq).unsqueeze(0)                # 1, 200
        real = pos >= seq - lengths                         # b, 200: the last `length` positions
        ids = torch.randint(1, items + 1, (batch, seq), generator=g).masked_fill(~real, 0)
        score = torch.rand(batch, seq, generator=g).masked_fill(~real, 2.0)
        chosen = score.argsort(1).argsort(1) < (0.15 * lengths).round().long()   # b, 200: 3 .. 30 per row
        inp = ids.masked_fill(chosen, items + 1)
        target = ids.masked_fill(~chosen, -100)
        return inp.to(device), target.to(device)
    return BERT4Rec(), make, _lm_loss, "adam"


# -- thirty-fourth round -------------------------------------------------------
# Models added after the thirty-third round: CANDLE's P3B3 multi-task
# convolutional text classifier (a 20,000 x 300 embedding of pathology
# reports of 1,500 tokens, three parallel 'same'-padded Conv1d branches of
# kernels 3, 4 and 5 each max-pooled over the whole document, four task
# heads whose cross-entropies are summed), CANDLE's P3B4 hierarchical
# attention network (a bidirectional nn.GRU over the 50 words of each of
# 30 sentences run as 30 x the batch short sequences, additive attention
# pooling, a second bidirectional GRU over the sentences), a DimeNet-shaped
# molecular regressor (Bessel radial and spherical-Bessel x Legendre
# angular bases computed each step from the positions, directional message
# passing over some 11 triplets per edge: gathers by triplet index, the
# bilinear einsum 'wj,wl,ijl->wi' and index_add_ back to the edges), a
# TabTransformer (eight per-column embedding tables, six tiny post-LN
# nn.TransformerEncoderLayers of 32 with heads of 4 over 8 tokens at a
# batch of thousands, an MLP on the flattened tokens and LayerNorm-ed
# continuous features) and a UNet++ segmenter (nested dense skip pathways
# whose nodes concatenate up to five maps, bilinear x2 upsampling with
# align_corners, 3x3 Conv-BN-ReLU pairs at 256 x 256).

class P3B3(nn.Module):
    """CANDLE's P3B3 multi-task CNN (Pilot3 P3B3, keras_mt_shared_cnn.py's
    init_export_network with p3b3_default_model.txt: filter sizes 3,
    filter sets 3, 100 filters, dropout 0.5) on b x 1,500 word indices of
    a 20,000-word vocabulary: a 300-wide embedding (Keras' uniform +-0.05
    init); three parallel Conv1d 300 -> 100 of kernels 3, 4 and 5, stride
    1, padding 'same' (Keras' too: 1 left and 2 right for the kernel of 4)
    + ReLU, each max-pooled over the 1,500 positions (GlobalMaxPooling1D);
    the three concatenated (300), dropout 0.5; one Dense head per task (25
    primary sites, 117 histologies, 4 lateralities, 9 behaviours: the
    softmax in the loss). Conv1d and Linear weights Glorot-uniform, biases
    zero; the reference's L2 regularisers are left out. Returns the four
    heads' logits side by side, b x 155."""

    TASKS = (25, 117, 4, 9)   # classes of primary site, histology, laterality and behaviour

    def __init__(self, vocab=20000, d=300, filters=100, kernels=(3, 4, 5), tasks=TASKS, drop=0.5):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.convs = nn.ModuleList(nn.Conv1d(d, filters, k, padding="same") for k in kernels)
        self.drop = nn.Dropout(drop)
        self.heads = nn.ModuleList(nn.Linear(filters * len(kernels), c) for c in tasks)
        nn.init.uniform_(self.emb.weight, -0.05, 0.05)
        for m in self.modules():
            if isinstance(m, (nn.Conv1d, nn.Linear)):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, ids):                                 # b, 1500
        x = self.emb(ids).transpose(1, 2)                   # b, 300, 1500
        h = torch.cat([F.relu(conv(x)).amax(2) for conv in self.convs], 1)   # 3 x (b, 100, 1500 -> b, 100) -> b, 300
        h = self.drop(h)
        return torch.cat([head(h) for head in self.heads], 1)   # b, 25 + 117 + 4 + 9 = 155


def _multitask_cls_loss(out, y):
    """P3B3's loss: the tasks' cross-entropies summed with equal weights;
    out holds the tasks' logits side by side (P3B3.TASKS), y one label
    per task (b x 4)."""
    return sum(F.cross_entropy(o, t) for o, t in zip(out.split(P3B3.TASKS, dim=1), y.unbind(1)))


def p3b3(batch, device):
    """batch: pathology reports as 1,500 word indices below 20,000 and one
    label per task (primary site, histology, laterality, behaviour)."""
    def make():
        return (torch.randint(0, 20000, (batch, 1500), device=device),
                torch.stack([torch.randint(0, c, (batch,), device=device) for c in P3B3.TASKS], 1))   # b, 4
    return P3B3(), make, _multitask_cls_loss, "adam"


class HANAttention(nn.Module):
    """The additive attention of a hierarchical attention network (Yang et
    al. 2016): u = tanh(Linear d -> d (h)), scores u . c against a learned
    context vector c (a Linear d -> 1 without bias), a softmax over the
    steps in fp32, and the steps' h summed under those weights."""

    def __init__(self, d):
        super().__init__()
        self.proj, self.ctx = nn.Linear(d, d), nn.Linear(d, 1, bias=False)

    def forward(self, h):                                   # n, t, d
        s = self.ctx(torch.tanh(self.proj(h))).squeeze(-1)  # n, t
        a = s.float().softmax(-1).to(h.dtype)               # n, t
        return (a.unsqueeze(-1) * h).sum(1)                 # n, d


class P3B4(nn.Module):
    """CANDLE's P3B4 hierarchical attention network (Pilot3 P3B4, HAN) on
    documents of 30 sentences of 50 words (word indices below 20,000): a
    200-wide embedding; the word level, the b x 30 x 50 ids viewed as (b
    30) x 50 sequences, a bidirectional nn.GRU of 100 per direction (batch
    first) and HANAttention of 200 pooling each sentence to 200; the
    sentence level, the (b 30) x 200 vectors viewed as b x 30, a second
    bidirectional nn.GRU of 100 and HANAttention to one 200-vector per
    document; a Linear to 10 classes (the softmax in the loss). Returns
    b, 10."""

    def __init__(self, vocab=20000, d=200, hidden=100, classes=10):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.word_rnn = nn.GRU(d, hidden, batch_first=True, bidirectional=True)
        self.word_attn = HANAttention(2 * hidden)
        self.sent_rnn = nn.GRU(2 * hidden, hidden, batch_first=True, bidirectional=True)
        self.sent_attn = HANAttention(2 * hidden)
        self.out = nn.Linear(2 * hidden, classes)

    def forward(self, ids):                                 # b, 30, 50
        b, s, w = ids.shape
        h, _ = self.word_rnn(self.emb(ids.reshape(b * s, w)))   # b 30, 50, 200
        sent = self.word_attn(h).view(b, s, -1)             # b 30, 200 -> b, 30, 200
        h, _ = self.sent_rnn(sent)                          # b, 30, 200
        return self.out(self.sent_attn(h))                  # b, 200 -> b, 10


def p3b4(batch, device):
    """batch: pathology reports as 30 sentences of 50 word indices below
    20,000 and one of 10 class labels."""
    def make():
        return (torch.randint(0, 20000, (batch, 30, 50), device=device),
                torch.randint(0, 10, (batch,), device=device))
    return P3B4(), make, _cls_loss, "adam"


def _sph_jl(l, x):
    """The spherical Bessel function j_l(x) of a Python float x > 0, by the
    upward recurrence j_{l+1} = (2l + 1) / x j_l - j_{l-1} (in float64)."""
    a, b = math.sin(x) / x, math.sin(x) / x ** 2 - math.cos(x) / x
    if l == 0:
        return a
    for k in range(1, l):
        a, b = b, (2 * k + 1) / x * b - a
    return b


def _sph_jl_zeros(n, k):
    """The first k positive zeros of j_l for l < n (a list of n lists), as
    DimeNet's Jn_zeros finds them: those of j_0 are m pi, and j_l has one
    zero between each two consecutive zeros of j_{l-1}, found here by
    bisection."""
    pts = [math.pi * (m + 1) for m in range(k + n - 1)]
    zeros = [pts[:k]]
    for l in range(1, n):
        new = []
        for a, b in zip(pts[:-1], pts[1:]):
            fa = _sph_jl(l, a)
            for _ in range(60):
                mid = 0.5 * (a + b)
                fm = _sph_jl(l, mid)
                if (fm > 0) == (fa > 0):
                    a, fa = mid, fm
                else:
                    b = mid
            new.append(0.5 * (a + b))
        pts = new
        zeros.append(pts[:k])
    return zeros


def _dimenet_envelope(x, p=6):
    """DimeNet's smooth cutoff envelope of the scaled distance x = d / c
    (exponent 5, so p = 6): 1/x + a x^(p-1) + b x^p + c x^(p+1), zero from
    x = 1 on."""
    a, b, c = -(p + 1) * (p + 2) / 2, p * (p + 2), -p * (p + 1) / 2
    return (1.0 / x + a * x ** (p - 1) + b * x ** p + c * x ** (p + 1)) * (x < 1.0).to(x.dtype)


class DimeNetResidual(nn.Module):
    """DimeNet's residual layer: x + swish(Linear(swish(Linear(x))))."""

    def __init__(self, d):
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        return x + F.silu(self.lin2(F.silu(self.lin1(x))))


class DimeNetInteraction(nn.Module):
    """DimeNet's interaction block (PyG's InteractionBlock): the radial
    basis by a Linear 6 -> 128 and the spherical basis by a Linear 42 -> 8
    (no biases); m_ji by swish(Linear) and m_kj by swish(Linear) times the
    projected radial basis; per triplet m_kj gathered by index_select on
    idx_kj and mixed with the projected spherical basis through the
    bilinear einsum 'wj,wl,ijl->wi' with a 128 x 8 x 128 weight; the
    triplets' messages summed onto their edge j -> i by index_add_ on
    idx_ji and added to m_ji; one DimeNetResidual, swish(Linear) plus the
    block's input, two DimeNetResiduals."""

    def __init__(self, d=128, bilinear=8, spherical=7, radial=6):
        super().__init__()
        self.lin_rbf = nn.Linear(radial, d, bias=False)
        self.lin_sbf = nn.Linear(spherical * radial, bilinear, bias=False)
        self.lin_kj, self.lin_ji = nn.Linear(d, d), nn.Linear(d, d)
        self.W = nn.Parameter(torch.empty(d, bilinear, d).normal_(0.0, 2.0 / d))
        self.before = DimeNetResidual(d)
        self.lin = nn.Linear(d, d)
        self.after = nn.ModuleList(DimeNetResidual(d) for _ in range(2))

    def forward(self, m, rbf, sbf, idx_kj, idx_ji):         # E, 128; E, 6; T, 42; T; T
        x_ji = F.silu(self.lin_ji(m))                       # E, 128
        x_kj = F.silu(self.lin_kj(m)) * self.lin_rbf(rbf)   # E, 128
        w = self.lin_sbf(sbf)                               # T, 8
        t = torch.einsum("wj,wl,ijl->wi", w, x_kj.index_select(0, idx_kj), self.W)   # T, 128
        h = x_ji + x_kj.new_zeros(m.shape[0], t.shape[1]).index_add_(0, idx_ji, t.to(x_kj.dtype))   # E, 128
        h = F.silu(self.lin(self.before(h))) + m
        for layer in self.after:
            h = layer(h)
        return h


class DimeNetOutput(nn.Module):
    """DimeNet's output block: the radial basis by a Linear 6 -> 128 (no
    bias) times the edge messages, summed onto the edges' target atoms by
    index_add_, three Linear 128 -> 128 + swish and a Linear to 1 (no
    bias)."""

    def __init__(self, d=128, radial=6, layers=3):
        super().__init__()
        self.lin_rbf = nn.Linear(radial, d, bias=False)
        self.lins = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.out = nn.Linear(d, 1, bias=False)

    def forward(self, m, rbf, dst, n):                      # E, 128; E, 6; E
        x = self.lin_rbf(rbf) * m                           # E, 128
        x = x.new_zeros(n, x.shape[1]).index_add_(0, dst, x)   # n, 128
        for lin in self.lins:
            x = F.silu(lin(x))
        return self.out(x)                                  # n, 1


class DimeNet(nn.Module):
    """A DimeNet-shaped molecular property regressor (Klicpera et al. 2020,
    PyG's DimeNet) on batched molecules of 24 atoms, edges j -> i of a
    fixed graph and triplets k -> j -> i (k != i) of fixed index lists.
    The geometry each step from the positions (no gradient wanted for
    them): the edges' vectors and distances, and each triplet's angle at j
    by atan2(|v_ji x v_kj|, v_ji . v_kj). The bases (cutoff 5 A, envelope
    exponent 5): radial, 6 Bessel functions envelope(d / c) sin(f_n d / c)
    with learned frequencies f_n starting at n pi; spherical, 7 x 6 = 42
    per triplet, the normalised spherical Bessel functions j_l(z_ln d_kj /
    c) (z_ln the n-th zero of j_l, j_l by upward recurrence) times the
    envelope, gathered by idx_kj and multiplied by the real spherical
    harmonics Y_l^0 of the angle (Legendre polynomials by recurrence).
    Embedding block: atom types embedded to 128, the radial basis by
    Linear 6 -> 128 + swish, [x_i, x_j, rbf] by Linear 384 -> 128 +
    swish; 4 DimeNetInteraction blocks (bilinear 8); 5 DimeNetOutput blocks
    (one after the embedding and one after each interaction) whose atom
    outputs are summed, then summed per molecule by index_add_. Returns
    b (one value per molecule)."""

    def __init__(self, d=128, blocks=4, bilinear=8, spherical=7, radial=6, cutoff=5.0, types=95):
        super().__init__()
        self.cutoff, self.spherical, self.radial = cutoff, spherical, radial
        self.freq = nn.Parameter(torch.arange(1, radial + 1).float() * math.pi)   # 6
        zeros = _sph_jl_zeros(spherical, radial)
        norm = [[math.sqrt(2.0) / abs(_sph_jl(l + 1, z)) for z in zs] for l, zs in enumerate(zeros)]
        self.register_buffer("jl_zeros", torch.tensor(zeros), persistent=False)   # 7, 6
        self.register_buffer("norm", torch.tensor(norm), persistent=False)     # 7, 6
        self.emb = nn.Embedding(types, d)
        self.emb_rbf, self.emb_lin = nn.Linear(radial, d), nn.Linear(3 * d, d)
        self.interactions = nn.ModuleList(DimeNetInteraction(d, bilinear, spherical, radial) for _ in range(blocks))
        self.outputs = nn.ModuleList(DimeNetOutput(d, radial) for _ in range(blocks + 1))

    def spherical_basis(self, x, angle, idx_kj):            # E (d / c); T; T
        env = _dimenet_envelope(x)                          # E
        u = x[:, None, None] * self.jl_zeros                # E, 7, 6
        s, c = u.sin(), u.cos()
        js = [s / u, s / u ** 2 - c / u]                    # j_0, j_1 at every u
        for l in range(1, self.spherical - 1):
            js.append((2 * l + 1) / u * js[-1] - js[-2])    # j_{l+1}
        jl = torch.stack([js[l][:, l] for l in range(self.spherical)], 1)   # E, 7, 6: j_l(z_ln x)
        rbf = (env[:, None, None] * self.norm * jl).index_select(0, idx_kj)   # T, 7, 6
        ct = torch.cos(angle)                               # T
        ps = [torch.ones_like(ct), ct]
        for l in range(1, self.spherical - 1):
            ps.append(((2 * l + 1) * ct * ps[-1] - l * ps[-2]) / (l + 1))   # Legendre P_{l+1}
        cbf = torch.stack([math.sqrt((2 * l + 1) / (4 * math.pi)) * p for l, p in enumerate(ps)], 1)   # T, 7
        return (rbf * cbf.unsqueeze(-1)).flatten(1)         # T, 42

    def forward(self, inp):
        z, pos, src, dst, idx_kj, idx_ji, mol = inp         # b, 24; b, 24, 3; E; E; T; T; n
        n_mol = z.shape[0]
        z, pos = z.flatten(), pos.reshape(-1, 3)            # n; n, 3
        n = z.shape[0]
        vec = pos.index_select(0, src) - pos.index_select(0, dst)   # E, 3: from i to j for edge j -> i
        x = vec.norm(dim=-1) / self.cutoff                  # E
        a, b = -vec.index_select(0, idx_ji), vec.index_select(0, idx_kj)   # T, 3: j -> i and j -> k
        angle = torch.atan2(torch.linalg.cross(a, b, dim=-1).norm(dim=-1), (a * b).sum(-1))   # T
        rbf = _dimenet_envelope(x)[:, None] * torch.sin(self.freq * x[:, None])   # E, 6
        sbf = self.spherical_basis(x, angle, idx_kj)        # T, 42
        h = self.emb(z)                                     # n, 128
        r = F.silu(self.emb_rbf(rbf))                       # E, 128
        m = F.silu(self.emb_lin(torch.cat([h.index_select(0, dst), h.index_select(0, src), r.to(h.dtype)], 1)))   # E, 128
        p = self.outputs[0](m, rbf, dst, n)                 # n, 1
        for inter, out in zip(self.interactions, self.outputs[1:]):
            m = inter(m, rbf, sbf, idx_kj, idx_ji)
            p = p + out(m, rbf, dst, n)
        p = p.squeeze(1)                                    # n
        return p.new_zeros(n_mol).index_add_(0, mol, p)     # b


def dimenet(batch, device):
    """batch: molecules of 24 atoms (types 1 .. 9), positions the 2 x 3 x
    4 lattice of 1.2 A plus Gaussian jitter of 0.15 A drawn each batch (so
    neighbours lie 0.5 to 4.7 A apart, inside the 5 A cutoff), one target
    per molecule. The graph is fixed, drawn once from a generator of seed
    0: each molecule's atoms placed on a ring in a random order and each
    atom joined to the 6 ring places either side (a symmetric 12-regular
    graph: 288 directed edges j -> i per molecule, edge 12 a + s entering
    atom a); the atoms numbered one after another, so offset by 24 per
    molecule. Triplets: for each edge j -> i the 11 other edges k -> j into
    j (the one from i left out), 3,168 per molecule (idx_kj, idx_ji)."""
    atoms, nbrs = 24, 12

    def make():
        g = torch.Generator().manual_seed(0)
        order = torch.rand(batch, atoms, generator=g).argsort(1)   # b, 24: the atom at each ring place
        place = order.argsort(1)                            # b, 24: each atom's ring place
        offs = torch.tensor([o for o in range(-(nbrs // 2), nbrs // 2 + 1) if o])   # 12: -6 .. -1, 1 .. 6
        ring = (place.unsqueeze(-1) + offs) % atoms         # b, 24, 12
        nbr = order.gather(1, ring.view(batch, -1)).view(batch, atoms, nbrs)   # b, 24, 12
        src = (nbr + atoms * torch.arange(batch).view(-1, 1, 1)).flatten()   # E = 288 b: edge 12 a + s is src -> a
        dst = torch.arange(batch * atoms).repeat_interleave(nbrs)   # E
        into_j = src.view(-1, 1) * nbrs + torch.arange(nbrs)   # E, 12: the edges k -> j into each edge's source j
        keep = src[into_j] != dst.view(-1, 1)               # E, 12: 11 per row (the graph is symmetric)
        idx_kj = into_j[keep]                               # T = 11 E
        idx_ji = torch.arange(src.shape[0]).view(-1, 1).expand(-1, nbrs)[keep]   # T
        lattice = torch.stack(torch.meshgrid(torch.arange(2), torch.arange(3), torch.arange(4), indexing="ij"),
                              -1).view(atoms, 3).float().to(device) * 1.2   # 24, 3
        pos = lattice + 0.15 * torch.randn(batch, atoms, 3, device=device)   # b, 24, 3
        mol = torch.arange(batch, device=device).repeat_interleave(atoms)   # n
        z = torch.randint(1, 10, (batch, atoms), device=device)
        return ((z, pos, src.to(device), dst.to(device), idx_kj.to(device), idx_ji.to(device), mol),
                torch.randn(batch, device=device))
    return DimeNet(), make, _mse_loss, "adam"


class TabTransformer(nn.Module):
    """TabTransformer (Huang et al. 2020) on 8 categorical columns of
    cardinalities 10, 50, 100, 1,000, 5,000, 20, 7 and 300 and 16
    continuous features: each column's ids embedded to 32 by its own
    nn.Embedding, plus a shared learned column embedding (8 x 32, one
    vector per column); 6 post-LN nn.TransformerEncoderLayers of 32 (batch
    first, 8 heads of 4, FFN 128 GELU, dropout 0.1) over the 8 column
    tokens; the contextual embeddings flattened to 256 and concatenated
    with the continuous features normalised by a LayerNorm (272); an MLP
    272 -> 1,088 -> 544 (ReLU) -> 1 logit. Returns b."""

    CARDS = (10, 50, 100, 1000, 5000, 20, 7, 300)

    def __init__(self, cards=CARDS, cont=16, d=32, layers=6, heads=8, ff=128, drop=0.1):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(c, d) for c in cards)
        self.col = nn.Parameter(torch.empty(len(cards), d).normal_(0.0, 0.02))   # 8, 32
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d, heads, ff, dropout=drop, activation="gelu", batch_first=True)
            for _ in range(layers))
        self.cont_ln = nn.LayerNorm(cont)
        w = len(cards) * d + cont                           # 272
        self.mlp = nn.Sequential(nn.Linear(w, 4 * w), nn.ReLU(inplace=True),
                                 nn.Linear(4 * w, 2 * w), nn.ReLU(inplace=True), nn.Linear(2 * w, 1))

    def forward(self, inp):
        cat, cont = inp                                     # b, 8 (ids); b, 16
        x = torch.stack([emb(c) for emb, c in zip(self.embs, cat.unbind(1))], 1) + self.col   # b, 8, 32
        for layer in self.layers:
            x = layer(x)                                    # b, 8, 32
        h = torch.cat([x.flatten(1), self.cont_ln(cont).to(x.dtype)], 1)   # b, 256 + 16 = 272
        return self.mlp(h).squeeze(1)                       # b


def tabtransformer(batch, device):
    """batch: rows of 8 categorical ids, each below its column's
    cardinality, 16 continuous features and a 0/1 label."""
    def make():
        cat = torch.stack([torch.randint(0, c, (batch,), device=device) for c in TabTransformer.CARDS], 1)   # b, 8
        return ((cat, torch.randn(batch, 16, device=device)),
                torch.randint(0, 2, (batch,), device=device).float())
    return TabTransformer(), make, _bce_loss, "adamw"


def _vgg_block(cin, mid, cout):
    """UNet++'s node (the reference's VGGBlock): 3x3 Conv2d, BatchNorm2d,
    ReLU, twice."""
    return nn.Sequential(nn.Conv2d(cin, mid, 3, padding=1), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
                         nn.Conv2d(mid, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNetPP(nn.Module):
    """UNet++ (Zhou et al. 2018, the reference NestedUNet) at 256 x 256, 3
    input channels, 1 class: nodes X^{i,j} of width 32, 64, 128, 256, 512
    at depth i = 0 .. 4 (256 down to 16 pixels), each a _vgg_block; the
    backbone X^{i,0} from 2x2 max-pooled X^{i-1,0}; the nested dense skip
    nodes X^{i,j} = node(cat(X^{i,0}, .., X^{i,j-1}, up(X^{i+1,j-1}))) with
    up a bilinear x2 nn.Upsample (align_corners True), computed along the
    anti-diagonals as the reference does (X^{0,1} after X^{1,0}, then
    X^{2,0}, X^{1,1}, X^{0,2}, ..); deep supervision off: X^{0,4} by a 1x1
    Conv2d to the logits. Returns b, 1, 256, 256."""

    def __init__(self, cin=3, classes=1, widths=(32, 64, 128, 256, 512)):
        super().__init__()
        self.depth = len(widths)
        self.nodes = nn.ModuleDict()
        for j in range(self.depth):
            for i in range(self.depth - j):
                c = (cin if i == 0 else widths[i - 1]) if j == 0 else j * widths[i] + widths[i + 1]
                self.nodes[f"x{i}_{j}"] = _vgg_block(c, widths[i], widths[i])
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.final = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):                                   # b, 3, 256, 256
        xs = [[] for _ in range(self.depth)]                # xs[i][j] = X^{i,j}
        for i in range(self.depth):
            xs[i].append(self.nodes[f"x{i}_0"](x if i == 0 else self.pool(xs[i - 1][0])))   # b, w_i, 256 / 2^i, ..
            for j in range(1, i + 1):
                r = i - j
                xs[r].append(self.nodes[f"x{r}_{j}"](torch.cat(xs[r] + [self.up(xs[r + 1][j - 1])], 1)))
        return self.final(xs[0][-1])                        # X^{0,4}: b, 32, 256, 256 -> b, 1, 256, 256


def unetpp(batch, device):
    """batch: 256 x 256 RGB images and random binary masks (floats)."""
    def make():
        return (torch.randn(batch, 3, 256, 256, device=device),
                torch.randint(0, 2, (batch, 1, 256, 256), device=device).float())
    return UNetPP(), make, _bce_loss, "adam"


# -- thirty-fifth round --------------------------------------------------------
# Models added after the thirty-fourth round: Zhang, Zhao & LeCun's
# character-level text CNN (the large configuration: 1,014 one-hot
# characters over a 70-letter alphabet, six Conv1d of 1,024 features with
# kernels 7, 7, 3, 3, 3, 3 and max pools of 3, two Linear 2,048 with
# dropout; a wide Conv1d on a long sequence and a 34,816 -> 2,048 GEMM),
# Chollet's Xception at 299 x 299 written out (depthwise 3x3 + pointwise
# 1x1 separable convolutions at 128 to 2,048 channels, 1x1 stride-2
# shortcuts, eight 728-channel middle-flow blocks at 19 x 19) and a
# supervised PatchTST forecaster (RevIN instance normalisation, patches of
# 16 with stride 8 by unfold over 321 independent channels, so a
# transformer batch of 321 x the batch of 64-token sequences, written-out
# attention of 16 heads of 8 with PatchTST's residual attention scores,
# BatchNorm1d as the norm, a flatten head).

class CharCNN(nn.Module):
    """The character-level ConvNet of Zhang, Zhao & LeCun 2015 ('Character-
    level Convolutional Networks for Text Classification'), the large
    configuration (their Tables 1 and 2) on AG News: b x 70 x 1,014 one-hot
    characters (an alphabet of 70; blanks and unknown characters all-zero
    columns); six Conv1d of 1,024 features, stride 1, no padding, kernels
    7, 7, 3, 3, 3, 3, each + ReLU, MaxPool1d 3 (stride 3) after layers 1,
    2 and 6 (1,014 -> 1,008 -> 336 -> 330 -> 110 -> 108 -> 106 -> 104 ->
    102 -> 34); flattened to 34 x 1,024 = 34,816; Linear 2,048 + ReLU,
    dropout 0.5, Linear 2,048 + ReLU, dropout 0.5, Linear to the 4 classes
    (the softmax in the loss). Weights from N(0, 0.02) as the paper
    initialises the large model, biases zero. Returns b, 4."""

    def __init__(self, alphabet=70, length=1014, features=1024, fc=2048, classes=4, drop=0.5):
        super().__init__()
        convs, c, n = [], alphabet, length
        for k, pool in zip((7, 7, 3, 3, 3, 3), (True, True, False, False, False, True)):
            convs += [nn.Conv1d(c, features, k), nn.ReLU(inplace=True)]
            n = n - k + 1
            if pool:
                convs.append(nn.MaxPool1d(3))
                n //= 3
            c = features
        self.features = nn.Sequential(*convs)
        self.classifier = nn.Sequential(
            nn.Linear(features * n, fc), nn.ReLU(inplace=True), nn.Dropout(drop),
            nn.Linear(fc, fc), nn.ReLU(inplace=True), nn.Dropout(drop),
            nn.Linear(fc, classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv1d, nn.Linear)):
                nn.init.normal_(m.weight, 0.0, 0.02)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 70, 1014
        h = self.features(x)                                # b, 1024, 34
        return self.classifier(h.flatten(1))                # b, 34816 -> b, 2048 -> b, 2048 -> b, 4


def charcnn(batch, device):
    """batch: texts of 1,014 characters one-hot over a 70-character
    alphabet (index 70, a blank or unknown character, left as an all-zero
    column), b x 70 x 1,014 floats, and one of AG News' 4 class labels."""
    def make():
        ids = torch.randint(0, 71, (batch, 1014), device=device)   # b, 1014: 70 = blank / unknown
        x = F.one_hot(ids, 71)[:, :, :70].transpose(1, 2).float().contiguous()   # b, 70, 1014
        return x, torch.randint(0, 4, (batch,), device=device)
    return CharCNN(), make, _cls_loss, "sgd_momentum"


def _sep_conv_bn(cin, cout):
    """Xception's SeparableConv2d + BatchNorm2d: a depthwise 3x3 Conv2d
    (groups = cin, padding 1, no bias) and a pointwise 1x1 Conv2d cin ->
    cout (no bias), no nonlinearity between them (as the paper and Keras
    have it), then BatchNorm2d."""
    return nn.Sequential(nn.Conv2d(cin, cin, 3, padding=1, groups=cin, bias=False),
                         nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))


class XceptionDown(nn.Module):
    """An Xception entry- or exit-flow block: [ReLU,] SeparableConv cin ->
    mid + BN, ReLU, SeparableConv mid -> cout + BN, MaxPool2d 3 stride 2
    (padding 1, Keras' 'same' sizes), added to a shortcut of a 1x1 stride-2
    Conv2d cin -> cout (no bias) + BatchNorm2d on the block's input (taken
    before the leading ReLU, which is therefore not in place)."""

    def __init__(self, cin, mid, cout, first_relu=True):
        super().__init__()
        self.body = nn.Sequential(*([nn.ReLU()] if first_relu else []), _sep_conv_bn(cin, mid),
                                  nn.ReLU(inplace=True), _sep_conv_bn(mid, cout),
                                  nn.MaxPool2d(3, stride=2, padding=1))
        self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=2, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):                                   # b, cin, h, w
        return self.body(x) + self.skip(x)                  # b, cout, ceil(h / 2), ceil(w / 2)


class XceptionMiddle(nn.Module):
    """An Xception middle-flow block: three times ReLU, SeparableConv 728
    -> 728 + BN, added to the block's input (identity shortcut)."""

    def __init__(self, c=728):
        super().__init__()
        self.body = nn.Sequential(*[m for _ in range(3) for m in (nn.ReLU(), _sep_conv_bn(c, c))])

    def forward(self, x):                                   # b, 728, 19, 19
        return x + self.body(x)


class Xception(nn.Module):
    """Xception (Chollet 2017, the paper's Figure 5 and Keras'
    applications.Xception) at 299 x 299 written out. Entry flow: Conv2d 3x3
    stride 2 3 -> 32 (no padding, no bias) + BN + ReLU (149 x 149), Conv2d
    3x3 32 -> 64 (no padding, no bias) + BN + ReLU (147), XceptionDown
    blocks to 128 (no leading ReLU; 74), 256 (37) and 728 (19). Middle
    flow: 8 XceptionMiddle blocks of 728 at 19 x 19. Exit flow:
    XceptionDown 728 -> 728 -> 1,024 (10 x 10), SeparableConv 1,024 ->
    1,536 + BN + ReLU, SeparableConv 1,536 -> 2,048 + BN + ReLU, global
    average pool, Linear 2,048 -> 1,000 (the softmax in the loss). PyTorch's
    default initialisation. Returns b, 1000."""

    def __init__(self, classes=1000, middle=8):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True))
        self.entry = nn.Sequential(XceptionDown(64, 128, 128, first_relu=False),
                                   XceptionDown(128, 256, 256), XceptionDown(256, 728, 728))
        self.middle = nn.Sequential(*[XceptionMiddle(728) for _ in range(middle)])
        self.exit = nn.Sequential(XceptionDown(728, 728, 1024),
                                  _sep_conv_bn(1024, 1536), nn.ReLU(inplace=True),
                                  _sep_conv_bn(1536, 2048), nn.ReLU(inplace=True))
        self.fc = nn.Linear(2048, classes)

    def forward(self, x):                                   # b, 3, 299, 299
        x = self.stem(x)                                    # b, 64, 147, 147 (32 at 149 between)
        x = self.entry(x)                                   # b, 128, 74, 74 -> b, 256, 37, 37 -> b, 728, 19, 19
        x = self.middle(x)                                  # b, 728, 19, 19
        x = self.exit(x)                                    # b, 1024, 10, 10 -> b, 1536, .. -> b, 2048, 10, 10
        return self.fc(x.mean((2, 3)))                      # b, 2048 -> b, 1000


def xception(batch, device):
    return Xception(), _images(batch, device, 299), _cls_loss, "sgd_momentum"


class PatchTSTLayer(nn.Module):
    """A PatchTST encoder layer (the reference TSTEncoderLayer with its
    defaults: post-norm, BatchNorm, residual attention): multi-head
    self-attention written out over the 64 patch tokens (W_Q, W_K, W_V
    Linear d -> d with bias, 16 heads of 8; q k^T scaled by 8^-0.5, plus
    the previous layer's pre-softmax scores when given (res_attention),
    softmax, matmul with v, heads merged, output Linear + dropout),
    dropout, residual, BatchNorm1d over d_model (transpose, BatchNorm1d,
    transpose, as the reference's Transpose + BatchNorm1d); FFN Linear d ->
    256, GELU, dropout, Linear 256 -> d, dropout, residual, the same
    BatchNorm1d. Returns the tokens and this layer's scores."""

    def __init__(self, d=128, heads=16, ff=256, drop=0.2):
        super().__init__()
        self.heads, self.scale = heads, (d // heads) ** -0.5
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.proj_drop, self.attn_drop = nn.Dropout(drop), nn.Dropout(drop)
        self.norm_attn, self.norm_ffn = nn.BatchNorm1d(d), nn.BatchNorm1d(d)
        self.ffn = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Dropout(drop), nn.Linear(ff, d))
        self.ffn_drop = nn.Dropout(drop)

    def forward(self, x, prev=None):                        # n, 64, 128 (n = b x 321 series)
        n, t, d = x.shape
        h, dh = self.heads, d // self.heads
        q = self.q(x).view(n, t, h, dh).transpose(1, 2)     # n, 16, 64, 8
        k = self.k(x).view(n, t, h, dh).permute(0, 2, 3, 1)   # n, 16, 8, 64
        v = self.v(x).view(n, t, h, dh).transpose(1, 2)     # n, 16, 64, 8
        s = torch.matmul(q, k) * self.scale                 # n, 16, 64, 64
        if prev is not None:
            s = s + prev                                    # residual attention scores
        a = F.softmax(s, dim=-1)                            # n, 16, 64, 64
        o = torch.matmul(a, v).transpose(1, 2).reshape(n, t, d)   # n, 16, 64, 8 -> n, 64, 128
        x = x + self.attn_drop(self.proj_drop(self.o(o)))   # n, 64, 128
        x = self.norm_attn(x.transpose(1, 2)).transpose(1, 2)   # BatchNorm1d over d_model
        x = x + self.ffn_drop(self.ffn(x))                  # n, 64, 128
        x = self.norm_ffn(x.transpose(1, 2)).transpose(1, 2)
        return x, s


class PatchTST(nn.Module):
    """PatchTST (Nie et al. 2023, 'A Time Series is Worth 64 Words'),
    supervised, channel-independent, in the reference PatchTST/64
    configuration for Electricity (scripts/PatchTST/electricity.sh:
    look-back 512, 321 channels, patch 16, stride 8, 3 layers, d_model 128,
    16 heads, d_ff 256, dropout 0.2, horizon 96, RevIN without affine,
    end padding). On b x 512 x 321: RevIN, per series (b, channel) the
    mean and the std (sqrt of the biased variance + 1e-5) over time
    subtracted and divided; channels to rows (b, 321, 512); the last value
    replicated 8 steps (ReplicationPad1d (0, 8): 520); unfold into 64
    patches of 16, stride 8; the (b 321) x 64 x 16 patches by a Linear 16
    -> 128 plus learned positions (64 x 128, uniform +-0.02), dropout 0.2;
    3 PatchTSTLayers (each after the first adding its predecessor's
    scores); flatten head: tokens to b x 321 x (128 x 64) (d_model-major
    as the reference's z is b x nvars x d_model x patch_num), Linear 8,192
    -> 96; to b x 96 x 321; de-normalised by the same std and mean.
    Returns b, 96, 321."""

    def __init__(self, seq=512, channels=321, horizon=96, patch=16, stride=8, d=128, layers=3,
                 heads=16, ff=256, drop=0.2, eps=1e-5):
        super().__init__()
        self.patch, self.stride, self.eps = patch, stride, eps
        n = (seq + stride - patch) // stride + 1            # 64 patches
        self.pad = nn.ReplicationPad1d((0, stride))
        self.embed = nn.Linear(patch, d)
        self.pos = nn.Parameter(torch.empty(n, d).uniform_(-0.02, 0.02))   # 64, 128
        self.drop = nn.Dropout(drop)
        self.layers = nn.ModuleList(PatchTSTLayer(d, heads, ff, drop) for _ in range(layers))
        self.head = nn.Linear(n * d, horizon)

    def forward(self, x):                                   # b, 512, 321
        b, _, c = x.shape
        mean = x.mean(1, keepdim=True)                      # b, 1, 321
        std = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + self.eps)   # b, 1, 321
        x = ((x - mean) / std).permute(0, 2, 1)             # b, 321, 512
        p = self.pad(x).unfold(-1, self.patch, self.stride)  # b, 321, 520 -> b, 321, 64, 16
        h = self.drop(self.embed(p.reshape(b * c, -1, self.patch)) + self.pos)   # b 321, 64, 128
        s = None
        for layer in self.layers:
            h, s = layer(h, s)                              # b 321, 64, 128; b 321, 16, 64, 64
        h = h.transpose(1, 2).reshape(b, c, -1)             # b, 321, 128 x 64 = 8192
        y = self.head(h).permute(0, 2, 1)                   # b, 321, 96 -> b, 96, 321
        return y * std + mean                               # b, 96, 321


def patchtst(batch, device):
    """batch: windows of 512 steps of the 321 Electricity series and the
    next 96 steps as the target (random values)."""
    def make():
        return (torch.randn(batch, 512, 321, device=device),
                torch.randn(batch, 96, 321, device=device))
    return PatchTST(), make, _mse_loss, "adam"


# And a gMLP masked language model
# (no attention anywhere: each block's spatial gating unit mixes the
# tokens by a Linear over the sequence axis, the 512 x 512 token-mixing
# GEMM run on the transposed half of the channels, its weight near zero
# and bias one at init so that each block starts as an identity-gated
# feed-forward) and an SR-GNN session recommender (per session a directed
# graph of its unique items built on the host into dense, degree-normalised
# b x 20 x 20 in- and out-adjacency matrices, one gated graph step of
# batched matmuls and a GRU-style update written out, a gather of the
# clicks' node states by alias indices, soft attention pooling and a
# 100-wide session vector scored against all 40,000 item embeddings).

class SpatialGatingUnit(nn.Module):
    """gMLP's spatial gating unit (Liu et al. 2021, Fig. 1, split variant):
    the b x n x d_ffn input split along the channels into halves u and v
    (d_ffn / 2 each); v LayerNorm-ed (in fp32) and mixed along the tokens
    by f(v) = W v + b with W n x n and b n (an nn.Linear n -> n on v
    transposed to b x d_ffn / 2 x n, so one GEMM over the token axis),
    W initialised near zero (uniform +-1e-3 / n, the scale common
    reimplementations use) and b to ones as the paper prescribes, so
    that s(Z) = u * f(v) starts as u; returns u * f(v), b x n x d_ffn /
    2. Bidirectional (no causal mask): the MLM setting."""

    def __init__(self, d_ffn, seq, eps=1e-3):
        super().__init__()
        self.norm = Fp32LayerNorm(d_ffn // 2)
        self.proj = nn.Linear(seq, seq)
        self.eps = eps
        self.init_spatial()

    def init_spatial(self):
        """The paper's initialisation of the spatial projection: W near
        zero, b one."""
        n = self.proj.in_features
        nn.init.uniform_(self.proj.weight, -self.eps / n, self.eps / n)
        nn.init.ones_(self.proj.bias)

    def forward(self, z):                                   # b, 512, 3072
        u, v = z.chunk(2, dim=-1)                           # b, 512, 1536 each
        v = self.norm(v)                                    # b, 512, 1536 (fp32)
        v = self.proj(v.transpose(1, 2)).transpose(1, 2)    # b, 1536, 512 -> Linear over tokens -> b, 512, 1536
        return u * v                                        # b, 512, 1536


class GMLPBlock(nn.Module):
    """A gMLP block: x + Linear d_ffn / 2 -> d (SGU(GELU(Linear d ->
    d_ffn (LayerNorm(x))))). No dropout."""

    def __init__(self, d, d_ffn, seq):
        super().__init__()
        self.norm = Fp32LayerNorm(d)
        self.proj_in = nn.Linear(d, d_ffn)
        self.sgu = SpatialGatingUnit(d_ffn, seq)
        self.proj_out = nn.Linear(d_ffn // 2, d)

    def forward(self, x):                                   # b, 512, 512
        z = F.gelu(self.proj_in(self.norm(x)))              # b, 512, 3072
        return x + self.proj_out(self.sgu(z))               # b, 512, 1536 -> b, 512, 512


class GMLPMLM(nn.Module):
    """A gMLP masked LM (Liu et al. 2021, "Pay Attention to MLPs"): the
    gMLP-base widths (d_model 512, d_ffn 3,072) at 12 layers instead of
    the paper's 48, sequence 512, BERT's 30,522-token uncased
    vocabulary. Learned token embeddings only (the spatial weights carry
    the positions, so no position embeddings, and no attention anywhere);
    12 GMLPBlock; a final LayerNorm (fp32); the hidden states at the
    masked positions gathered and their logits by the token embedding
    (tied) plus a bias. Linear and embedding weights normal of std 0.02
    except the SGU's spatial projections (near zero, bias one). Returns
    b, 77, 30522."""

    def __init__(self, vocab=30522, d=512, d_ffn=3072, layers=12, seq=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(GMLPBlock(d, d_ffn, seq) for _ in range(layers))
        self.norm = Fp32LayerNorm(d)
        self.bias = nn.Parameter(torch.zeros(vocab))
        normal_linears_embeddings(self)
        for blk in self.blocks:
            blk.sgu.init_spatial()                          # undo the normal init of the spatial weights

    def forward(self, inp):
        ids, masked = inp                                   # b, 512; b, 77
        x = self.tok(ids)                                   # b, 512, 512
        for blk in self.blocks:
            x = blk(x)                                      # b, 512, 512
        x = self.norm(x)
        x = x.gather(1, masked.unsqueeze(-1).expand(-1, -1, x.shape[-1]))   # b, 77, 512
        return F.linear(x, self.tok.weight, self.bias)      # b, 77, 30522


def gmlp(batch, device):
    """batch: sequences of 512 token ids below 30,522, 77 positions of
    each (15%, distinct, drawn once, so fixed for the reused batch)
    replaced by [MASK] (103); the targets are the original ids there, the
    loss on those alone."""
    return GMLPMLM(), _mlm_batch(batch, 512, 30522, device, 103), _lm_loss, "adamw"


class SRGNN(nn.Module):
    """SR-GNN (Wu et al. 2019, "Session-based Recommendation with Graph
    Neural Networks"; the authors' PyTorch model.py, hidden size 100, one
    GNN step, hybrid session embedding) over 40,000 items (ids 1 ..
    40,000; 0 the padding): an item table of 40,001 x 100. Per session the
    node states of its unique items (b x 20, padded with item 0) are
    embedded; one gated graph step: a_in = A_in (Linear_in h) + b_iah and
    a_out = A_out (Linear_out h) + b_oah by batched matmuls with the dense
    b x 20 x 20 normalised adjacency matrices, a = [a_in, a_out] (200);
    the GRU-style update written out as the reference does: gi = Linear
    200 -> 300 (a), gh = Linear 100 -> 300 (h), each chunked into reset,
    update and new parts, r = sigmoid(i_r + h_r), z = sigmoid(i_z + h_z),
    n = tanh(i_n + r h_n), h' = n + z (h - n). The clicks' states
    gathered from the nodes by the alias indices (b x 20 x 100); the last
    click's state s_l (at mask.sum - 1); soft attention alpha_i =
    Linear 100 -> 1 (no bias) of sigmoid(Linear q1 (s_l) + Linear q2
    (s_i)), the global s_g = sum of alpha_i s_i over the real clicks; the
    hybrid Linear 200 -> 100 of [s_g, s_l]; scores against the 40,000
    real items' embeddings (a matmul with the table's rows 1 .., no bias).
    Every parameter uniform in +-1 / sqrt(100), as the reference's
    reset_parameters. Returns b, 40000."""

    def __init__(self, items=40000, d=100):
        super().__init__()
        self.emb = nn.Embedding(items + 1, d)
        self.edge_in, self.edge_out = nn.Linear(d, d), nn.Linear(d, d)
        self.b_iah, self.b_oah = nn.Parameter(torch.empty(d)), nn.Parameter(torch.empty(d))
        self.gate_i, self.gate_h = nn.Linear(2 * d, 3 * d), nn.Linear(d, 3 * d)
        self.q1, self.q2 = nn.Linear(d, d), nn.Linear(d, d)
        self.q3 = nn.Linear(d, 1, bias=False)
        self.hybrid = nn.Linear(2 * d, d)
        s = 1.0 / math.sqrt(d)
        for p in self.parameters():
            nn.init.uniform_(p, -s, s)

    def gnn_step(self, h, a_in, a_out):                     # b, 20, 100; b, 20, 20; b, 20, 20
        x_in = torch.matmul(a_in, self.edge_in(h)) + self.b_iah     # b, 20, 100
        x_out = torch.matmul(a_out, self.edge_out(h)) + self.b_oah  # b, 20, 100
        gi = self.gate_i(torch.cat([x_in, x_out], 2))       # b, 20, 300
        gh = self.gate_h(h)                                 # b, 20, 300
        i_r, i_z, i_n = gi.chunk(3, 2)
        h_r, h_z, h_n = gh.chunk(3, 2)
        r = torch.sigmoid(i_r + h_r)                        # b, 20, 100
        z = torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        return n + z * (h - n)                              # b, 20, 100

    def forward(self, inp):
        nodes, a_in, a_out, alias, mask = inp               # b, 20; b, 20, 20; b, 20, 20; b, 20; b, 20
        h = self.gnn_step(self.emb(nodes), a_in, a_out)     # b, 20 nodes, 100
        seq = h.gather(1, alias.unsqueeze(-1).expand(-1, -1, h.shape[-1]))   # b, 20 clicks, 100
        last = mask.sum(1).long() - 1                       # b: the last click's position
        s_l = seq[torch.arange(seq.shape[0], device=seq.device), last]      # b, 100
        alpha = self.q3(torch.sigmoid(self.q1(s_l).unsqueeze(1) + self.q2(seq)))   # b, 20, 1
        s_g = (alpha * seq * mask.unsqueeze(-1)).sum(1)     # b, 100
        s_h = self.hybrid(torch.cat([s_g, s_l], 1))         # b, 200 -> b, 100
        return torch.matmul(s_h, self.emb.weight[1:].t())   # b, 40000


def srgnn(batch, device):
    """batch: session prefixes of 1 to 20 clicks over items 1 .. 40,000,
    lengths and clicks drawn once from a generator of seed 0 (each click
    after the first repeats an earlier click of its session with
    probability 0.3, so that the graphs have revisits and cycles), right-
    padded with 0 to 20, and the next item as the target (0 .. 39,999:
    item id - 1, the score's column). Built on the host once per batch,
    as the reference's Data.get_slice: per session its unique items
    sorted (torch.unique), padded with 0 to 20 nodes; the alias of each
    click (its node's index, 0 at padding); the directed graph of
    consecutive clicks u -> v as a 0/1 matrix M; A_in = M^T with each row
    divided by the node's in-degree and A_out = M with each row divided by
    its out-degree (degrees of 0 taken as 1); the click mask (floats)."""
    seq, items = 20, 40000

    def make():
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(1, seq + 1, (batch,), generator=g)       # b
        clicks = torch.randint(1, items + 1, (batch, seq), generator=g)   # b, 20
        repeat = torch.rand(batch, seq, generator=g) < 0.3
        rows = torch.arange(batch)
        for t in range(1, seq):
            src = (torch.rand(batch, generator=g) * t).long()            # b: an earlier click
            clicks[:, t] = torch.where(repeat[:, t], clicks[rows, src], clicks[:, t])
        mask = torch.arange(seq).unsqueeze(0) < lengths.unsqueeze(1)     # b, 20
        clicks = clicks.masked_fill(~mask, 0)
        target = torch.randint(0, items, (batch,), generator=g)         # b
        nodes = torch.zeros(batch, seq, dtype=torch.long)
        alias = torch.zeros(batch, seq, dtype=torch.long)
        adj = torch.zeros(batch, seq, seq)                               # b, 20, 20: M[u, v] = 1 for a click u -> v
        for i in range(batch):
            s = clicks[i, :lengths[i]]
            uniq = torch.unique(s)                                       # sorted
            nodes[i, :uniq.numel()] = uniq
            alias[i, :s.numel()] = torch.searchsorted(uniq, s)
            a = alias[i, :s.numel()]
            adj[i, a[:-1], a[1:]] = 1.0
        a_in = adj.transpose(1, 2) / adj.sum(1).clamp(min=1).unsqueeze(2)   # b, 20, 20: rows over in-edges
        a_out = adj / adj.sum(2).clamp(min=1).unsqueeze(2)                   # b, 20, 20: rows over out-edges
        return ((nodes.to(device), a_in.to(device), a_out.to(device), alias.to(device), mask.float().to(device)),
                target.to(device))
    return SRGNN(), make, _cls_loss, "adam"


# -- thirty-sixth round --------------------------------------------------------
# Models added after the thirty-fifth round: SqueezeNet 1.1 at 224 x 224
# written out (fire modules: a 1x1 squeeze Conv2d to 16-64 channels, then
# parallel 1x1 and 3x3 expand Conv2d concatenated, so many small,
# narrow convolutions and channel concatenations; max pools with
# ceil_mode; a 1x1 Conv2d classifier and a global average pool instead of
# a Linear), a SIREN (Sitzmann et al. 2020) fitting a 512 x 512 RGB image
# (a batch of a quarter million 2-D pixel coordinates through five 256-wide
# Linears each followed by sin(30 x), so skinny 262,144 x 256 x 256 GEMMs
# and elementwise sines) and a stacked DCN-V2 (Wang et al. 2021) CTR model
# (26 separate embedding tables of 16 with 100 to 2,000,000 rows and
# dense gradients, so a 100M-parameter Adam update dominated by the tables;
# three full-rank 429 x 429 cross layers x0 * (W x + b) + x and a
# BatchNorm1d MLP on top).

class Fire(nn.Module):
    """SqueezeNet's fire module (Iandola et al. 2016, Fig. 1, torchvision's
    Fire): a squeeze 1x1 Conv2d cin -> s + ReLU, then an expand 1x1 Conv2d
    s -> e and an expand 3x3 Conv2d s -> e (padding 1), each + ReLU, their
    outputs concatenated along the channels (2 e)."""

    def __init__(self, cin, s, e):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, s, 1)
        self.expand1 = nn.Conv2d(s, e, 1)
        self.expand3 = nn.Conv2d(s, e, 3, padding=1)

    def forward(self, x):                                   # b, cin, h, w
        s = F.relu(self.squeeze(x), inplace=True)           # b, s, h, w
        return torch.cat([F.relu(self.expand1(s), inplace=True),
                          F.relu(self.expand3(s), inplace=True)], 1)   # b, 2 e, h, w


class SqueezeNet(nn.Module):
    """SqueezeNet 1.1 (Iandola et al. 2016; the 1.1 variant of the
    authors' SqueezeNet_v1.1 release and torchvision's squeezenet1_1) at
    224 x 224 written out: Conv2d 3x3 stride 2 3 -> 64 (no padding) + ReLU
    (111 x 111), MaxPool2d 3 stride 2 ceil_mode (55); Fire 16/64 and 16/64
    (128 channels out), MaxPool (27); Fire 32/128 and 32/128 (256),
    MaxPool (13); Fire 48/192, 48/192 (384), 64/256 and 64/256 (512) at 13
    x 13; classifier dropout 0.5, Conv2d 1x1 512 -> 1,000 + ReLU, global
    average pool (the softmax in the loss). torchvision's initialisation:
    kaiming-uniform convolutions, the final one N(0, 0.01), biases zero.
    Returns b, 1000."""

    def __init__(self, classes=1000, drop=0.5):
        super().__init__()
        pool = lambda: nn.MaxPool2d(3, stride=2, ceil_mode=True)   # noqa: E731
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, stride=2), nn.ReLU(inplace=True), pool(),
            Fire(64, 16, 64), Fire(128, 16, 64), pool(),
            Fire(128, 32, 128), Fire(256, 32, 128), pool(),
            Fire(256, 48, 192), Fire(384, 48, 192), Fire(384, 64, 256), Fire(512, 64, 256))
        self.drop = nn.Dropout(drop)
        self.final = nn.Conv2d(512, classes, 1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is self.final:
                    nn.init.normal_(m.weight, 0.0, 0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 3, 224, 224
        h = self.features(x)                                # b, 64, 111 -> 55 -> b, 128, 27 -> b, 256, 13 -> b, 512, 13, 13
        h = F.relu(self.final(self.drop(h)), inplace=True)  # b, 1000, 13, 13
        return h.mean((2, 3))                               # b, 1000


def squeezenet(batch, device):
    return SqueezeNet(), _images(batch, device), _cls_loss, "sgd_momentum"


class Siren(nn.Module):
    """SIREN (Sitzmann et al. 2020, 'Implicit Neural Representations with
    Periodic Activation Functions', the image-fitting setting of the
    reference explore_siren notebook) mapping 2-D pixel coordinates in
    [-1, 1] to RGB: five sine layers of 256 (Linear 2 -> 256, then four
    Linear 256 -> 256, each followed by sin(omega_0 x) with omega_0 = 30),
    then a Linear 256 -> 3 (no activation). The paper's initialisation: the
    first layer's weight uniform(-1 / in, 1 / in) (in = 2), every later
    weight (the output layer's too) uniform(-sqrt(6 / in) / 30, sqrt(6 /
    in) / 30); biases PyTorch's default. Returns n, 3."""

    def __init__(self, cin=2, width=256, layers=5, cout=3, omega=30.0):
        super().__init__()
        self.omega = omega
        self.sines = nn.ModuleList(nn.Linear(cin if i == 0 else width, width) for i in range(layers))
        self.out = nn.Linear(width, cout)
        with torch.no_grad():
            for i, lin in enumerate(list(self.sines) + [self.out]):
                n = lin.in_features
                bound = 1.0 / n if i == 0 else math.sqrt(6.0 / n) / omega
                lin.weight.uniform_(-bound, bound)

    def forward(self, x):                                   # n, 2 (pixel coordinates)
        for lin in self.sines:
            x = torch.sin(self.omega * lin(x))              # n, 256
        return self.out(x)                                  # n, 3


def siren(batch, device):
    """batch: pixel coordinates of a 512 x 512 image (x and y on the
    linspace(-1, 1, 512) grid), batch of them drawn uniformly with
    replacement in make() (262,144 = one image's worth), and their RGB
    values in a random image with values in [-1, 1] (the reference's
    normalisation)."""
    side = 512

    def make():
        grid = torch.linspace(-1.0, 1.0, side, device=device)
        image = torch.rand(side * side, 3, device=device) * 2 - 1     # 262144, 3
        idx = torch.randint(0, side * side, (batch,), device=device)  # n
        coords = torch.stack([grid[idx % side], grid[idx // side]], 1)   # n, 2: x, y
        return coords, image[idx]                                      # n, 2; n, 3
    return Siren(), make, _mse_loss, "adam"


class DCNV2(nn.Module):
    """DCN-V2 (Wang et al. 2021, 'DCN V2: Improved Deep & Cross Network'),
    the stacked structure (Fig. 1b: the cross network's output fed to the
    deep network) on Criteo-like inputs: 26 categorical fields, each in its
    own nn.Embedding of 16 (dense gradients) with vocabularies log-spaced
    from 100 to 2,000,000 rows (round(100 x 20,000^(i / 25)), 6.1M rows in
    all), and 13 dense features, concatenated to x0 of 26 x 16 + 13 = 429;
    3 cross layers of the full-rank matrix form x_{l+1} = x0 * (W_l x_l +
    b_l) + x_l (W_l 429 x 429, an nn.Linear); the deep network Linear 429
    -> 1,024, 1,024 -> 1,024, 1,024 -> 512, each + BatchNorm1d + ReLU +
    dropout 0.1; Linear 512 -> 1 logit. PyTorch's default initialisation.
    Returns b."""

    VOCABS = tuple(int(round(100 * 20000 ** (i / 25))) for i in range(26))

    def __init__(self, vocabs=VOCABS, dim=16, dense=13, cross=3, deep=(1024, 1024, 512), drop=0.1):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(v, dim) for v in vocabs)
        d = len(vocabs) * dim + dense                       # 429
        self.cross = nn.ModuleList(nn.Linear(d, d) for _ in range(cross))
        layers, c = [], d
        for w in deep:
            layers += [nn.Linear(c, w), nn.BatchNorm1d(w), nn.ReLU(inplace=True), nn.Dropout(drop)]
            c = w
        self.deep = nn.Sequential(*layers)
        self.out = nn.Linear(c, 1)

    def forward(self, inp):
        cat, dense = inp                                    # b, 26 (ids); b, 13
        x0 = torch.cat([emb(c) for emb, c in zip(self.embs, cat.unbind(1))] + [dense], 1)   # b, 416 + 13 = 429
        x = x0
        for lin in self.cross:
            x = x0 * lin(x) + x                             # b, 429
        return self.out(self.deep(x)).squeeze(1)            # b, 1024 -> b, 1024 -> b, 512 -> b


def dcnv2(batch, device):
    """batch: rows of 26 categorical ids, each below its field's
    vocabulary, 13 dense features (standard normal) and a 0/1 label."""
    def make():
        cat = torch.stack([torch.randint(0, v, (batch,), device=device) for v in DCNV2.VOCABS], 1)   # b, 26
        return ((cat, torch.randn(batch, 13, device=device)),
                torch.randint(0, 2, (batch,), device=device).float())
    return DCNV2(), make, _bce_loss, "adam"


# And a BART-base-shaped denoising
# sequence-to-sequence LM at reduced depth (post-LN encoder and decoder
# layers of 768 with written-out matmul + fp32 softmax + matmul attention:
# bidirectional encoder self-attention under a key-padding mask, causal
# decoder self-attention, cross-attention to the 512 encoder states; a
# text-infilling corrupted source built on the host, so padded rows; the
# 50,265-way LM head tied to the shared embedding over all 512 target
# positions) and an IndRNN on sequential-MNIST pixel sequences (784 steps,
# each layer's input projection one GEMM over all steps, the recurrence a
# Python loop of elementwise multiply, add and ReLU per step: thousands of
# tiny kernels forward and backward around a handful of 128-wide GEMMs).

class BartAttention(nn.Module):
    """BART's multi-head attention (HF BartAttention, eager path) written
    out: q, k, v and out projections Linear d -> d with bias, heads of d /
    heads, q scaled by head_dim^-0.5 before the matmul; scores q k^T
    cast to fp32, a boolean mask (True = masked: padded keys or future
    positions) filled with the fp32 minimum, softmax in fp32, attention
    dropout, back to the value dtype, matmul with v, heads merged, out
    projection. kv is x for self-attention, the encoder states for
    cross-attention."""

    def __init__(self, d=768, heads=12, drop=0.1):
        super().__init__()
        self.heads, self.scale = heads, (d // heads) ** -0.5
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.drop = nn.Dropout(drop)

    def forward(self, x, kv, mask):                         # b, t, 768; b, s, 768; bool broadcastable to b, 12, t, s
        b, t, d = x.shape
        s, h = kv.shape[1], self.heads
        q = (self.q(x) * self.scale).view(b, t, h, -1).transpose(1, 2)   # b, 12, t, 64
        k = self.k(kv).view(b, s, h, -1).transpose(1, 2)    # b, 12, s, 64
        v = self.v(kv).view(b, s, h, -1).transpose(1, 2)    # b, 12, s, 64
        w = torch.matmul(q, k.transpose(2, 3)).float()      # b, 12, t, s (fp32)
        w = w.masked_fill(mask, torch.finfo(torch.float32).min)
        w = self.drop(torch.softmax(w, dim=-1)).type_as(v)  # b, 12, t, s
        o = torch.matmul(w, v).transpose(1, 2).reshape(b, t, d)   # b, 12, t, 64 -> b, t, 768
        return self.o(o)                                    # b, t, 768


class BartLayer(nn.Module):
    """A post-LN BART layer (HF BartEncoderLayer / BartDecoderLayer):
    x = LN(x + dropout(self-attention(x))); in the decoder also x = LN(x
    + dropout(cross-attention(x, encoder states))); x = LN(x +
    dropout(Linear 3,072 -> d (dropout(GELU(Linear d -> 3,072 (x)))))).
    LayerNorms in fp32 (Fp32LayerNorm)."""

    def __init__(self, d=768, heads=12, ff=3072, cross=False, drop=0.1):
        super().__init__()
        self.self_attn, self.self_norm = BartAttention(d, heads, drop), Fp32LayerNorm(d)
        if cross:
            self.cross_attn, self.cross_norm = BartAttention(d, heads, drop), Fp32LayerNorm(d)
        self.fc1, self.fc2, self.ffn_norm = nn.Linear(d, ff), nn.Linear(ff, d), Fp32LayerNorm(d)
        self.drop = nn.Dropout(drop)

    def forward(self, x, mask, mem=None, mem_mask=None):   # b, 512, 768
        x = self.self_norm(x + self.drop(self.self_attn(x, x, mask)))    # b, 512, 768
        if mem is not None:
            x = self.cross_norm(x + self.drop(self.cross_attn(x, mem, mem_mask)))   # b, 512, 768
        h = self.drop(F.gelu(self.fc1(x)))                  # b, 512, 3072
        return self.ffn_norm(x + self.drop(self.fc2(h)))    # b, 512, 768


class Bart(nn.Module):
    """A BART-base-shaped denoising seq2seq LM (Lewis et al. 2020; the
    sizes of facebook/bart-base: d_model 768, 12 heads, FFN 3,072 GELU,
    the 50,265-token GPT-2 byte-level BPE vocabulary, learned positions of
    1,024 + 2 (BART's offset of 2), dropout 0.1 everywhere, no embedding
    scale, no final LayerNorm) at 3 encoder and 3 decoder layers instead
    of 6 + 6. A shared 50,265 x 768 token embedding (padding index 1);
    encoder: tokens + its own learned positions (table 1,026 x 768, read
    at 2 .. t + 1), LayerNorm (layernorm_embedding), dropout, 3
    BartLayers with a key-padding mask of the source's <pad> (1)
    positions; decoder: the shifted-right targets embedded the same way
    with the decoder's own position table and LayerNorm, 3 BartLayers
    with causal self-attention and cross-attention to the encoder states
    (the same key-padding mask); logits by the tied embedding plus the
    final_logits_bias buffer (zeros, as HF keeps it). Linear and embedding
    weights normal of std 0.02, biases zero, the padding row zero (HF's
    _init_weights). Returns b, 512, 50265."""

    def __init__(self, vocab=50265, d=768, heads=12, ff=3072, layers=3, positions=1024, pad=1, drop=0.1):
        super().__init__()
        self.pad, self.offset = pad, 2
        self.tok = nn.Embedding(vocab, d, padding_idx=pad)
        self.enc_pos = nn.Embedding(positions + self.offset, d)   # 1026, 768
        self.dec_pos = nn.Embedding(positions + self.offset, d)
        self.enc_norm, self.dec_norm = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.enc = nn.ModuleList(BartLayer(d, heads, ff, False, drop) for _ in range(layers))
        self.dec = nn.ModuleList(BartLayer(d, heads, ff, True, drop) for _ in range(layers))
        self.drop = nn.Dropout(drop)
        self.register_buffer("final_logits_bias", torch.zeros(1, vocab))
        normal_linears_embeddings(self)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)
        with torch.no_grad():
            self.tok.weight[pad].zero_()

    def embed(self, ids, pos, norm):                        # b, t
        p = torch.arange(self.offset, ids.shape[1] + self.offset, device=ids.device)   # t: 2 .. t + 1
        return self.drop(norm(self.tok(ids) + pos(p)))      # b, t, 768

    def forward(self, inp):
        src, tgt = inp                                      # b, 512 (corrupted, padded); b, 512 (shifted right)
        t = tgt.shape[1]
        pad_mask = src.eq(self.pad)[:, None, None, :]       # b, 1, 1, 512: True at padded keys
        x = self.embed(src, self.enc_pos, self.enc_norm)    # b, 512, 768
        for layer in self.enc:
            x = layer(x, pad_mask)                          # b, 512, 768
        causal = torch.ones(t, t, dtype=torch.bool, device=tgt.device).triu(1)   # 512, 512: True above the diagonal
        y = self.embed(tgt, self.dec_pos, self.dec_norm)    # b, 512, 768
        for layer in self.dec:
            y = layer(y, causal, x, pad_mask)               # b, 512, 768
        return F.linear(y, self.tok.weight) + self.final_logits_bias   # b, 512, 50265


def bart(batch, device):
    """batch: documents of 512 tokens (<s> = 0, 510 ids drawn from 4 ..
    50,263, </s> = 2) as the targets, drawn once from a generator of seed
    0; the source corrupted on the host by BART's text infilling at a 15%
    budget: 76 of the 510 body tokens in spans of Poisson(3) lengths
    (drawn until the budget is reached, the last trimmed to it, zero
    lengths dropped, so no insertions), the spans placed between the kept
    tokens at sorted random gaps (two spans may abut), each span replaced
    by one <mask> (50,264), the shortened source right-padded with <pad>
    (1) to 512; the decoder input the targets shifted right behind </s>
    (2, BART's decoder_start_token_id). The loss over all 512 target
    positions."""
    seq, mask_id, pad = 512, 50264, 1

    def make():
        g = torch.Generator().manual_seed(0)
        body = seq - 2
        tgt = torch.randint(4, mask_id, (batch, seq), generator=g)       # b, 512
        tgt[:, 0], tgt[:, -1] = 0, 2
        src = torch.full((batch, seq), pad, dtype=torch.long)
        budget = round(0.15 * body)                                      # 76 masked tokens
        for i in range(batch):
            lengths = torch.poisson(torch.full((budget,), 3.0), generator=g).long()
            cum = lengths.cumsum(0)
            n = int((cum < budget).sum()) + 1                            # spans up to the one reaching the budget
            lengths = lengths[:n].clone()
            lengths[-1] = budget - (int(cum[n - 2]) if n > 1 else 0)
            lengths = lengths[lengths > 0]                               # k spans, summing to 76
            gaps = torch.randint(0, body - budget + 1, (lengths.numel(),), generator=g).sort().values
            starts = gaps + torch.cumsum(lengths, 0) - lengths           # body positions of the span starts
            masked = torch.zeros(body, dtype=torch.bool)
            first = torch.zeros(body, dtype=torch.bool)
            for s, l in zip(starts.tolist(), lengths.tolist()):
                masked[s:s + l] = True
                first[s] = True
            kept = tgt[i, 1:-1].masked_fill(first, mask_id)[~masked | first]   # kept tokens and one <mask> per span
            row = torch.cat([tgt[i, :1], kept, tgt[i, -1:]])                 # < 512
            src[i, :row.numel()] = row
        dec_in = torch.cat([torch.full((batch, 1), 2, dtype=torch.long), tgt[:, :-1]], 1)   # b, 512
        return (src.to(device), dec_in.to(device)), tgt.to(device)
    return Bart(), make, _lm_loss, "adamw"


class IndRNNLayer(nn.Module):
    """An IndRNN layer (Li et al. 2018, 'Independently Recurrent Neural
    Network'): h_t = relu(W x_t + u * h_{t-1} + b) with u a vector of
    per-unit recurrent weights (each unit sees only its own past). The
    input projections of all steps at once by one Linear (W, b), the
    recurrence a Python loop over the steps of elementwise multiply, add
    and ReLU from h_0 = 0. u uniform in (0, 1), clipped at init to the
    paper's max-step bound [0, 2^(1/T)] for T = 784 steps (a no-op on (0,
    1) draws, kept as the rule) and not clipped during training."""

    def __init__(self, cin, hidden=128, steps=784, gamma=2.0):
        super().__init__()
        self.inp = nn.Linear(cin, hidden)
        self.u = nn.Parameter(torch.empty(hidden).uniform_(0.0, 1.0))
        with torch.no_grad():
            self.u.clamp_(0.0, gamma ** (1.0 / steps))

    def forward(self, x):                                   # b, 784, cin
        z = self.inp(x)                                     # b, 784, 128: all steps at once
        h = z.new_zeros(z.shape[0], z.shape[2])             # b, 128
        hs = []
        for t in range(z.shape[1]):
            h = torch.relu(z[:, t] + self.u * h)            # b, 128
            hs.append(h)
        return torch.stack(hs, 1)                           # b, 784, 128


class IndRNN(nn.Module):
    """A residual IndRNN on sequential MNIST (Li et al. 2018, the 6-layer
    pixel-MNIST setting): b x 784 x 1 pixel sequences, 6 IndRNNLayers of
    128 (1 -> 128, then 128 -> 128); BatchNorm1d over the 128 units
    between layers (after layers 1 to 5), applied on the b * 784 rows;
    residual connections every 2 layers: layer 4's output plus the
    (normalised) output of layer 2, layer 6's plus that of layer 4 (layer
    2 has no 128-wide input two layers below); the last step's state of
    layer 6 to Linear 128 -> 10 (the softmax in the loss). PyTorch's
    default initialisation apart from u. Returns b, 10."""

    def __init__(self, steps=784, hidden=128, layers=6, classes=10):
        super().__init__()
        self.rnns = nn.ModuleList(IndRNNLayer(1 if i == 0 else hidden, hidden, steps) for i in range(layers))
        self.norms = nn.ModuleList(nn.BatchNorm1d(hidden) for _ in range(layers - 1))
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x):                                   # b, 784, 1
        b, t, _ = x.shape
        skip = None
        for i, rnn in enumerate(self.rnns):
            h = rnn(x)                                      # b, 784, 128
            if i % 2 == 1:
                if skip is not None:
                    h = h + skip                            # residual over the last 2 layers
            if i < len(self.norms):
                h = self.norms[i](h.reshape(b * t, -1)).view(b, t, -1)   # BatchNorm1d on b 784 rows
            if i % 2 == 1:
                skip = h
            x = h
        return self.fc(x[:, -1])                            # b, 128 -> b, 10


def indrnn(batch, device):
    """batch: 28 x 28 images read pixel by pixel, b x 784 x 1 (random
    values), and one of 10 class labels."""
    def make():
        return (torch.randn(batch, 784, 1, device=device),
                torch.randint(0, 10, (batch,), device=device))
    return IndRNN(), make, _cls_loss, "adam"


# -- thirty-seventh round ------------------------------------------------------
# Models added after the thirty-sixth round: a Kolmogorov-Arnold Network
# (Liu et al. 2024) in the "efficient KAN" formulation on flattened MNIST
# (784-256-256-10: per layer a Linear on SiLU(x) plus cubic B-spline bases
# on a 12-knot grid built by the Cox-de Boor recursion as elementwise ops
# on b x in x knots tensors, comparisons, subtractions, divisions by knot
# differences and multiplies, then one GEMM of the b x (in * 8) bases
# against the scaled spline weights, so 9 x the Linear's FLOPs and
# elementwise work the size of the GEMM inputs) and a word2vec skip-gram
# with negative sampling (Mikolov et al. 2013: two 100,000 x 300
# nn.Embedding tables with dense gradients, a bmm of b x 16 x 300 context
# vectors with the b x 300 x 1 centre vectors, logsigmoid; a step whose
# arithmetic is tiny and whose time goes to the embedding backward's dense
# 100,000 x 300 gradients of both tables and plain SGD over 60M
# parameters).

def _kan_bases(x, grid, order):
    """B-spline bases of the given order of x (b, in) on the per-input
    knots grid (in, knots) by the Cox-de Boor recursion, written out as
    efficient-kan's b_splines: order-0 indicators of the knot intervals,
    then order times the two-term recursion on shifted slices. Returns b,
    in, knots - 1 - order."""
    x = x.unsqueeze(-1)                                     # b, in, 1
    bases = ((x >= grid[:, :-1]) & (x < grid[:, 1:])).to(x.dtype)   # b, in, 11: order 0
    for k in range(1, order + 1):
        bases = ((x - grid[:, :-(k + 1)]) / (grid[:, k:-1] - grid[:, :-(k + 1)]) * bases[:, :, :-1]
                 + (grid[:, k + 1:] - x) / (grid[:, k + 1:] - grid[:, 1:-k]) * bases[:, :, 1:])   # b, in, 11 - k
    return bases                                            # b, in, 8 (grid 5 + order 3)


class KANLinear(nn.Module):
    """A KAN layer in the efficient-kan formulation (Blealtan's
    efficient-kan, the reference re-implementation of Liu et al. 2024,
    'KAN: Kolmogorov-Arnold Networks'): every input-output edge carries
    a learnable function w_b silu(x) + c * spline(x), computed as a base
    branch F.linear(silu(x), base_weight) plus a spline branch: cubic
    (order 3) B-spline bases of x on a uniform grid of 5 intervals over
    [-1, 1], extended by 3 knots each side (12 knots, step 0.4, a buffer of
    in x 12), so 8 bases per input (b x in x 8), flattened to b x in * 8
    and multiplied by the spline weights (out x in x 8, times a learnable
    per-(out, in) spline scaler, flattened to out x in * 8) in one GEMM.
    No bias; no grid updates during training. efficient-kan's
    initialisation: base weight kaiming-uniform with a = sqrt(5), spline
    weights the least-squares coefficients (torch.linalg.lstsq, on the
    host at build) of noise uniform(+-0.05) / 5 at the 6 interior knots,
    the scaler kaiming-uniform with a = sqrt(5). Returns b, out."""

    def __init__(self, cin, cout, grid=5, order=3, lo=-1.0, hi=1.0, noise=0.1):
        super().__init__()
        self.order = order
        h = (hi - lo) / grid
        knots = torch.arange(-order, grid + order + 1, dtype=torch.float32) * h + lo   # 12
        self.register_buffer("grid", knots.expand(cin, -1).contiguous())   # in, 12
        self.base_weight = nn.Parameter(torch.empty(cout, cin))
        self.spline_weight = nn.Parameter(torch.empty(cout, cin, grid + order))
        self.spline_scaler = nn.Parameter(torch.empty(cout, cin))
        nn.init.kaiming_uniform_(self.base_weight, a=math.sqrt(5))
        with torch.no_grad():
            pts = self.grid.t()[order:-order]                # 6, in: the interior knots
            y = (torch.rand(grid + 1, cin, cout) - 0.5) * noise / grid   # 6, in, out
            a = _kan_bases(pts, self.grid, order).transpose(0, 1)       # in, 6, 8
            coef = torch.linalg.lstsq(a, y.transpose(0, 1)).solution    # in, 8, out
            self.spline_weight.copy_(coef.permute(2, 0, 1))  # out, in, 8
        nn.init.kaiming_uniform_(self.spline_scaler, a=math.sqrt(5))

    def forward(self, x):                                   # b, in
        base = F.linear(F.silu(x), self.base_weight)        # b, out
        bases = _kan_bases(x, self.grid, self.order)        # b, in, 8
        w = self.spline_weight * self.spline_scaler.unsqueeze(-1)   # out, in, 8
        spline = F.linear(bases.flatten(1), w.flatten(1))   # b, in * 8 -> b, out
        return base + spline                                # b, out


class KAN(nn.Module):
    """A Kolmogorov-Arnold Network (Liu et al. 2024) of efficient-kan
    KANLinear layers 784 -> 256 -> 256 -> 10 on flattened 28 x 28 images
    (efficient-kan's MNIST example with two hidden layers of 256 instead
    of one of 64), no normalisation or activation between the layers
    (each layer's silu and splines are its nonlinearity), 2.69M
    parameters (10 per edge: base weight, 8 spline coefficients,
    scaler). Returns b, 10."""

    def __init__(self, widths=(784, 256, 256, 10)):
        super().__init__()
        self.layers = nn.ModuleList(KANLinear(a, b) for a, b in zip(widths[:-1], widths[1:]))

    def forward(self, x):                                   # b, 1, 28, 28
        x = x.flatten(1)                                    # b, 784
        for layer in self.layers:
            x = layer(x)                                    # b, 256 -> b, 256 -> b, 10
        return x                                            # b, 10


def kan(batch, device):
    """batch: 28 x 28 images, values uniform in [-1, 1] (MNIST normalised
    by mean 0.5 and std 0.5, as efficient-kan's example), and one of 10
    class labels."""
    def make():
        return (torch.rand(batch, 1, 28, 28, device=device) * 2 - 1,
                torch.randint(0, 10, (batch,), device=device))
    return KAN(), make, _cls_loss, "adam"


class SkipGram(nn.Module):
    """word2vec's skip-gram with negative sampling (Mikolov et al. 2013,
    'Distributed Representations of Words and Phrases and their
    Compositionality'): an input (centre word) table and an output
    (context word) table, each nn.Embedding 100,000 x 300 with dense
    gradients (sparse=False), initialised as word2vec.c does (input
    uniform(+-0.5 / 300), output zeros). Per centre word its 1 positive
    and 15 negative context words (column 0 the positive) are looked up in
    the output table (b x 16 x 300) and scored against the centre vector
    (b x 300 x 1) by one bmm. Returns the b, 16 scores."""

    def __init__(self, vocab=100000, dim=300):
        super().__init__()
        self.inp = nn.Embedding(vocab, dim)
        self.out = nn.Embedding(vocab, dim)
        nn.init.uniform_(self.inp.weight, -0.5 / dim, 0.5 / dim)
        nn.init.zeros_(self.out.weight)

    def forward(self, x):
        centre, ctx = x                                     # b; b, 16 (positive, 15 negatives)
        v = self.inp(centre).unsqueeze(2)                   # b, 300, 1
        u = self.out(ctx)                                   # b, 16, 300
        return torch.bmm(u, v).squeeze(2)                   # b, 16


def _sgns_loss(out, y):
    """Skip-gram negative-sampling loss: -log sigmoid(positive score) -
    sum of log sigmoid(-negative score) over the 15 negatives (column 0
    the positive), mean over the batch (y is unused)."""
    return -(F.logsigmoid(out[:, 0]) + F.logsigmoid(-out[:, 1:]).sum(1)).mean()


def word2vec(batch, device):
    """batch: centre words and their positive context words drawn from a
    Zipf-shaped unigram distribution over the 100,000-word vocabulary
    (frequency of rank r proportional to 1 / (r + 1), rank 0 the most
    frequent, as word2vec sorts its vocabulary), and 15 negatives per
    centre word from the unigram distribution raised to 0.75 (word2vec's
    noise distribution). Both distributions are computed once here,
    outside make(); make() draws the words fresh on each call by
    torch.multinomial with replacement (negatives equal to the positive
    left in). No targets: column 0 of the scores is the positive."""
    vocab, negatives = 100000, 15
    freq = 1.0 / torch.arange(1, vocab + 1, dtype=torch.float64)   # Zipf counts
    unigram = (freq / freq.sum()).float().to(device)               # 100000
    noise = freq ** 0.75
    noise = (noise / noise.sum()).float().to(device)               # 100000: unigram^0.75

    def make():
        centre = torch.multinomial(unigram, batch, replacement=True)             # b
        pos = torch.multinomial(unigram, batch, replacement=True)                # b
        neg = torch.multinomial(noise, batch * negatives, replacement=True)      # b * 15
        ctx = torch.cat([pos.unsqueeze(1), neg.view(batch, negatives)], 1)       # b, 16
        return (centre, ctx), None
    return SkipGram(), make, _sgns_loss, "sgd"


# The round's other three: VGG-16 with BatchNorm at
# 224 x 224 written out (torchvision's vgg16_bn layout: thirteen dense
# 3x3 Conv2d of 64 to 512 channels from 224 x 224 down to 14 x 14, so
# very large convolutions, BatchNorm2d and ReLU after each, five max
# pools, and a 124M-parameter classifier of two 4,096-wide Linears (103M
# in the 25,088 -> 4,096 one) that dominates the SGD-momentum update),
# the Nature DQN Q-learning step on stacked Atari frames (an online
# network and a frozen target copy: three strided Conv2d, Linear
# 3,136-512 and 512-18; the online forward and backward on the states, a
# no-grad target forward on the next states, a gather of the taken
# actions' Q values, a max over the target's actions and a Huber loss
# between the two) and a Linformer masked-LM encoder on 4,096-token
# sequences (keys and values projected along the sequence axis to 256 by
# learned 4,096 x 256 matrices, so einsums over the sequence dimension
# and 4,096 x 256 attention scores written out instead of 4,096 x 4,096;
# a 32,000-way output Linear at all 4,096 positions).

class VGG16(nn.Module):
    """VGG-16 (Simonyan & Zisserman 2014, configuration D) with BatchNorm,
    torchvision's vgg16_bn layout at 224 x 224: thirteen Conv2d 3x3
    padding 1 of 64, 64, M, 128, 128, M, 256 x 3, M, 512 x 3, M, 512 x 3,
    M (M a MaxPool2d 2 stride 2), each conv followed by BatchNorm2d and
    ReLU (224 -> 112 -> 56 -> 28 -> 14 -> 7); AdaptiveAvgPool2d(7) (a
    no-op at 224); flatten 25,088; classifier Linear 25,088-4,096, ReLU,
    Dropout 0.5, Linear 4,096-4,096, ReLU, Dropout 0.5, Linear 4,096-1,000
    (the softmax in the loss). torchvision's initialisation: convolutions
    kaiming-normal (fan_out, relu) with zero biases, BatchNorm weight 1 and
    bias 0, Linears N(0, 0.01) with zero biases. 138.4M parameters.
    Returns b, 1000."""

    cfg = (64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M")

    def __init__(self, classes=1000, drop=0.5):
        super().__init__()
        layers, c = [], 3
        for v in self.cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2, stride=2))
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
                c = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(7)
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(inplace=True), nn.Dropout(drop),
            nn.Linear(4096, 4096), nn.ReLU(inplace=True), nn.Dropout(drop),
            nn.Linear(4096, classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):                                   # b, 3, 224, 224
        h = self.features(x)                                # b, 64, 224 -> 128, 112 -> 256, 56 -> 512, 28 -> 512, 14 -> b, 512, 7, 7
        h = torch.flatten(self.avgpool(h), 1)               # b, 25088
        return self.classifier(h)                           # b, 4096 -> b, 4096 -> b, 1000


def vgg16(batch, device):
    return VGG16(), _images(batch, device), _cls_loss, "sgd_momentum"


class NatureQNet(nn.Module):
    """The Nature DQN Q-network (Mnih et al. 2015, 'Human-level control
    through deep reinforcement learning', Methods: model architecture) on
    b x 4 x 84 x 84 stacks of preprocessed frames: Conv2d 4 -> 32 8x8
    stride 4 (20 x 20), ReLU, Conv2d 32 -> 64 4x4 stride 2 (9 x 9), ReLU,
    Conv2d 64 -> 64 3x3 stride 1 (7 x 7), ReLU, flatten 3,136, Linear
    3,136-512, ReLU, Linear 512 -> one Q value per action (18, the full
    Atari action set). PyTorch's default initialisation. Returns b, 18."""

    def __init__(self, frames=4, actions=18):
        super().__init__()
        self.conv1 = nn.Conv2d(frames, 32, 8, stride=4)
        self.conv2 = nn.Conv2d(32, 64, 4, stride=2)
        self.conv3 = nn.Conv2d(64, 64, 3, stride=1)
        self.fc = nn.Linear(64 * 7 * 7, 512)
        self.out = nn.Linear(512, actions)

    def forward(self, x):                                   # b, 4, 84, 84
        h = F.relu(self.conv1(x))                           # b, 32, 20, 20
        h = F.relu(self.conv2(h))                           # b, 64, 9, 9
        h = F.relu(self.conv3(h))                           # b, 64, 7, 7
        h = F.relu(self.fc(torch.flatten(h, 1)))            # b, 3136 -> b, 512
        return self.out(h)                                  # b, 18


class NatureDQN(nn.Module):
    """One Nature DQN Q-learning update (Mnih et al. 2015, Algorithm 1) as
    a module, so that it fits the (module, make, loss_fn, optimizer)
    contract: an online NatureQNet and a target NatureQNet (a copy of the
    online weights at construction, every parameter requires_grad False,
    run under torch.no_grad(); the every-C-steps sync is not part of the
    step). The input is a replay minibatch (s, a, r, s', done); forward
    computes Q(s) by the online net and gathers the taken actions' values
    Q(s, a), and the targets y = r + gamma (1 - done) max_a' Q_target(s',
    a') with gamma 0.99 from the target net, and returns the two stacked
    (the targets carry no graph), so the loss is the Huber loss between
    the columns. Returns b, 2: [Q(s, a), y]."""

    def __init__(self, frames=4, actions=18, gamma=0.99):
        super().__init__()
        self.gamma = gamma
        self.online = NatureQNet(frames, actions)
        self.target = NatureQNet(frames, actions)
        self.target.load_state_dict(self.online.state_dict())
        self.target.requires_grad_(False)

    def forward(self, x):                                   # (b, 4, 84, 84; b; b; b, 4, 84, 84; b)
        s, a, r, s2, done = x
        q = self.online(s)                                  # b, 18
        q_sa = q.gather(1, a.unsqueeze(1)).squeeze(1)       # b: Q(s, a) of the taken actions
        with torch.no_grad():
            q2 = self.target(s2).max(1).values              # b: max_a' Q_target(s', a')
            y = r + self.gamma * (1.0 - done) * q2.float()  # b: Bellman targets, no graph
        return torch.stack([q_sa.float(), y], 1)            # b, 2


def _dqn_huber_loss(out, y):
    return F.smooth_l1_loss(out[:, 0], out[:, 1])


def dqn(batch, device):
    """batch: a replay minibatch of b transitions: states of 4 stacked 84 x
    84 frames with values in [0, 1) (uint8 pixels / 255, drawn as
    floats), actions among 18, clipped rewards in {-1, 0, 1}, next states
    (the state's last 3 frames and one new frame, as the replay memory's
    overlapping frame stacks give them) and done flags (10% terminal).
    The target is make()'s actions again, unused by the loss (the
    Bellman targets are computed in the module)."""
    def make():
        s = torch.rand(batch, 4, 84, 84, device=device)                           # b, 4, 84, 84
        s2 = torch.cat([s[:, 1:], torch.rand(batch, 1, 84, 84, device=device)], 1)   # b, 4, 84, 84
        a = torch.randint(0, 18, (batch,), device=device)                         # b
        r = torch.randint(-1, 2, (batch,), device=device).float()                 # b
        done = (torch.rand(batch, device=device) < 0.1).float()                   # b
        return (s, a, r, s2, done), a
    return NatureDQN(), make, _dqn_huber_loss, "adam"


class LinformerAttention(nn.Module):
    """Linformer self-attention (Wang et al. 2020, 'Linformer:
    Self-Attention with Linear Complexity', Eq. 7 with headwise sharing):
    q, k, v Linears d -> d, then keys and values projected along the
    sequence axis from n = 4,096 to k = 256 positions by learned E and F
    (each n x 256, shared by the heads of the layer, uniform +-1/sqrt(256)
    as in lucidrains' linformer), applied as einsums over the sequence
    dimension; per head (8 of 64) scores q k'^T / sqrt(64) over n x 256,
    softmax over the 256 projected positions, times v'; output Linear."""

    def __init__(self, d=512, heads=8, seq=4096, kproj=256):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        bound = 1.0 / math.sqrt(kproj)
        self.E = nn.Parameter(torch.empty(seq, kproj).uniform_(-bound, bound))
        self.F = nn.Parameter(torch.empty(seq, kproj).uniform_(-bound, bound))

    def forward(self, x):                                   # b, n, d
        b, n, d = x.shape
        h = self.heads
        q = self.q(x).view(b, n, h, d // h).transpose(1, 2)         # b, 8, n, 64
        k = torch.einsum("bnd,nk->bkd", self.k(x), self.E)          # b, 256, d: keys projected over the sequence
        v = torch.einsum("bnd,nk->bkd", self.v(x), self.F)          # b, 256, d
        k = k.view(b, -1, h, d // h).transpose(1, 2)                # b, 8, 256, 64
        v = v.view(b, -1, h, d // h).transpose(1, 2)                # b, 8, 256, 64
        s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d // h)   # b, 8, n, 256
        p = torch.softmax(s, -1)                                    # b, 8, n, 256
        a = torch.matmul(p, v)                                      # b, 8, n, 64
        return self.o(a.transpose(1, 2).reshape(b, n, d))           # b, n, d


class LinformerLayer(nn.Module):
    """A pre-LN Linformer encoder layer: x + attn(LN(x)), then x +
    FFN(LN(x)) with FFN Linear d-2,048, GELU, Linear 2,048-d."""

    def __init__(self, d=512, heads=8, seq=4096, kproj=256, ff=2048):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = LinformerAttention(d, heads, seq, kproj)
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x):                                   # b, n, d
        x = x + self.attn(self.ln1(x))                      # b, n, d
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))  # b, n, 2048 -> b, n, d


class Linformer(nn.Module):
    """A Linformer encoder (Wang et al. 2020) for masked-LM-style token
    classification: 32,000 x 512 token embedding plus learned 4,096 x 512
    positions (both N(0, 0.02)), 6 pre-LN LinformerLayers of 512 (8 heads,
    projected length 256, FFN 2,048 GELU), no dropout, final LayerNorm,
    output Linear 512-32,000 at all 4,096 positions (untied). PyTorch's
    default initialisation for the Linears. Returns b, 4096, 32000."""

    def __init__(self, vocab=32000, d=512, heads=8, layers=6, seq=4096, kproj=256, ff=2048):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(seq, d))
        nn.init.normal_(self.emb.weight, 0.0, 0.02)
        nn.init.normal_(self.pos, 0.0, 0.02)
        self.layers = nn.ModuleList(LinformerLayer(d, heads, seq, kproj, ff) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):                                 # b, 4096 token ids
        x = self.emb(idx) + self.pos[:idx.shape[1]]         # b, 4096, 512
        for layer in self.layers:
            x = layer(x)                                    # b, 4096, 512
        return self.head(self.ln(x))                        # b, 4096, 32000


def linformer(batch, device):
    return Linformer(), _tokens(batch, 4096, 32000, device), _lm_loss, "adamw"


# -- thirty-eighth round -------------------------------------------------------
# Models added after the thirty-seventh round: MIND, the Multi-Interest
# Network with Dynamic routing (Li et al. 2019, Tmall) as a candidate
# generator over a 1,000,000 x 64 item table with dense gradients: 50
# behaviours per user mapped by one shared 64 x 64 bilinear matrix, three
# B2I dynamic-routing iterations over b x 4 x 50 routing logits drawn from
# N(0, 1) in every step (softmax over the 4 interests, masked at the
# padding, bmm to b x 4 x 64 capsules, squash, bmm back to the logits),
# the profile concatenated to each interest and a 2-layer ReLU MLP,
# label-aware attention with power 2 and a 256-way sampled softmax (the
# target plus 255 negatives shared by the batch, one 64-wide GEMM); the
# arithmetic is a few GFLOPs and the step's time goes to small batched
# matmuls, elementwise routing work and the dense 1,000,000 x 64 embedding
# gradient and its Adam update.

def _squash(s, eps=1e-8):
    """The capsule squash non-linearity |s|^2 / (1 + |s|^2) s / |s| over
    the last dimension (DeepMatch's squash: sqrt(|s|^2 + 1e-8))."""
    n2 = (s * s).sum(-1, keepdim=True)                      # ..., 1
    return n2 / (1 + n2) / torch.sqrt(n2 + eps) * s


class MINDRouting(nn.Module):
    """MIND's multi-interest extractor layer (Li et al. 2019, 'Multi-
    Interest Network with Dynamic Routing for Recommendation at Tmall',
    section 3.3: behaviour-to-interest (B2I) dynamic routing), laid out
    as DeepMatch's CapsuleLayer and torch-rechub's / ComiRec's
    CapsuleNetwork with bilinear_type 0: one bilinear map S (64 x 64,
    N(0, 1) init as DeepMatch) shared by every behaviour-interest pair,
    u_hat = e S (b x 50 x 64, not replicated per interest); routing logits
    b x 4 x 50 drawn from N(0, 1) afresh in every forward (fixed for the
    batch, no gradient; the paper's random init, which is what separates
    the interests when S is shared); 3 iterations of: coupling weights
    softmax of the logits over the 4 interests (the paper's w_ij; the
    reference re-implementations normalise over the behaviours instead),
    zeroed at the padded behaviours, capsules z = w u_hat (bmm, b x 4 x
    64), v = squash(z), and, except after the last, logits += v u_hat^T
    (bmm, b x 4 x 50). As in the references the first iterations route
    the detached u_hat (the logits carry no gradient) and only the last
    capsules' bmm is differentiated. Returns b, 4, 64."""

    def __init__(self, d=64, interests=4, iters=3):
        super().__init__()
        self.S = nn.Parameter(torch.randn(d, d))            # 64, 64
        self.interests, self.iters = interests, iters

    def forward(self, e, mask):                             # b, 50, 64; b, 50 (1 real, 0 padding)
        u = torch.matmul(e, self.S)                         # b, 50, 64
        u_iter = u.detach()
        logits = torch.randn(e.shape[0], self.interests, e.shape[1], device=e.device)   # b, 4, 50
        keep = mask.unsqueeze(1)                            # b, 1, 50
        for i in range(self.iters):
            w = F.softmax(logits, dim=1) * keep             # b, 4, 50: over the interests, padding zeroed
            last = i == self.iters - 1
            v = _squash(torch.bmm(w, u if last else u_iter))   # b, 4, 64
            if not last:
                logits = logits + torch.bmm(v, u_iter.transpose(1, 2))   # b, 4, 50
        return v                                            # b, 4, 64


class MIND(nn.Module):
    """MIND (Li et al. 2019, Alibaba; the design of the public
    re-implementations, DeepMatch's MIND and torch-rechub's MIND) trained
    as a candidate generator: an item table nn.Embedding 1,000,000 x 64
    (dense gradients, shared by the behaviours, the target and the
    negatives; N(0, 1e-4) init as DeepMatch's init_std) looks up the 50
    behaviours (pad id 0, masked); the user profile, 3 single-valued
    categorical fields of 100,000, 1,000 and 100 values in nn.Embedding
    tables of 64 (the pooling of a single-valued field is its lookup),
    concatenated to 192; the MINDRouting extractor gives K = 4 interest
    capsules of 64; each is concatenated after the profile (256) and
    passed through the user DNN Linear 256-256, ReLU, Linear 256-64, ReLU
    (DeepCTR's DNN, activation on both layers): b x 4 x 64. Label-aware
    attention (section 3.4) picks the user vector for the target: scores
    (V e_t)^p with p = 2, softmax over the 4 interests, weighted sum. The
    sampled softmax logits are the user vector against the target item
    (column 0, an elementwise dot) and the 255 negatives shared by the
    batch (F.linear against their 255 x 64 rows), no log-Q correction,
    accidental hits left in. 70.6M parameters, 64M of them the item
    table. Returns b, 256."""

    def __init__(self, items=1000000, fields=(100000, 1000, 100), d=64, interests=4, hidden=256, p=2.0):
        super().__init__()
        self.item = nn.Embedding(items, d)
        self.profile = nn.ModuleList(nn.Embedding(n, d) for n in fields)
        for emb in [self.item, *self.profile]:
            nn.init.normal_(emb.weight, std=1e-4)
        self.routing = MINDRouting(d, interests)
        self.dnn = nn.Sequential(nn.Linear(len(fields) * d + d, hidden), nn.ReLU(inplace=True),
                                 nn.Linear(hidden, d), nn.ReLU(inplace=True))
        self.p = p

    def forward(self, x):
        hist, mask, prof, target, neg = x                   # b, 50; b, 50; b, 3; b; 255
        caps = self.routing(self.item(hist), mask)          # b, 50, 64 -> b, 4, 64
        k = caps.shape[1]
        pr = torch.cat([emb(prof[:, j]) for j, emb in enumerate(self.profile)], 1)   # b, 192
        h = torch.cat([pr.unsqueeze(1).expand(-1, k, -1).to(caps.dtype), caps], 2)  # b, 4, 256
        v = self.dnn(h)                                     # b, 4, 64: the interests' user vectors
        t = self.item(target)                               # b, 64
        att = torch.bmm(v, t.unsqueeze(2).to(v.dtype)).squeeze(2)   # b, 4
        att = F.softmax(att.pow(self.p), dim=1)             # b, 4: label-aware attention
        u = torch.bmm(att.unsqueeze(1).to(v.dtype), v).squeeze(1)  # b, 64
        pos = (u * t.to(u.dtype)).sum(1, keepdim=True)      # b, 1
        negs = F.linear(u, self.item(neg))                  # b, 255
        return torch.cat([pos.to(negs.dtype), negs], 1)     # b, 256: the target's first


def mind(batch, device):
    """batch: users with behaviour histories of 1 to 50 items (lengths
    drawn uniformly per user, ids uniform in [1, 1,000,000), right-padded
    with 0) and their float padding mask, 3 profile ids (of 100,000, 1,000
    and 100 values), the next item as target and 255 negatives drawn
    uniformly once per batch and shared by it; the labels are column 0 of
    the logits."""
    items, steps, negatives = 1000000, 50, 255

    def make():
        lens = torch.randint(1, steps + 1, (batch,), device=device)
        mask = (torch.arange(steps, device=device).unsqueeze(0) < lens.unsqueeze(1)).float()   # b, 50
        hist = torch.randint(1, items, (batch, steps), device=device) * mask.long()            # b, 50
        prof = torch.stack([torch.randint(0, n, (batch,), device=device) for n in (100000, 1000, 100)], 1)
        return ((hist, mask, prof, torch.randint(1, items, (batch,), device=device),
                 torch.randint(1, items, (negatives,), device=device)),
                torch.zeros(batch, dtype=torch.long, device=device))
    return MIND(), make, _cls_loss, "adam"


# Models added after the thirty-seventh round: ECAPA-TDNN speaker
# verification (Desplanques et al. 2020, SpeechBrain's ECAPA_TDNN layout)
# on 2 s crops of 80-dim log-mel features (200 frames): Conv1d 80-512 of
# kernel 5, three SE-Res2Blocks of 512 channels at dilations 2, 3, 4 (1x1
# Conv1d, Res2Net split into 8 groups of 64 whose 7 dilated kernel-3
# Conv1d run one after another on the group plus the previous group's
# output, 1x1 Conv1d, squeeze-excitation over the time mean), kernels
# above 1 reflect-padded as SpeechBrain's convolutions are, ReLU and
# BatchNorm1d after every trunk convolution; the three blocks' outputs
# concatenated (1,536) through a 1x1 Conv1d; attentive statistics pooling
# with global context (the 4,608-channel concat of frames with their
# utterance mean and std repeated over time, a 1x1 Conv1d 4,608-128,
# tanh, 1x1 Conv1d 128-1,536, softmax over time, attention-weighted mean
# and std), BatchNorm1d, Linear 3,072-192; cosine scores against 5,994
# normalised speaker weights and the additive angular margin (m 0.2,
# s 30) applied to the target column in the loss. Many small Conv1d of
# 64 channels in a sequential chain, reflection pads, 512 x 200 BatchNorm1d
# and ReLU, reductions over time and a 4,608 x 200 concat.

class EcapaTDNNBlock(nn.Module):
    """SpeechBrain's TDNNBlock (speechbrain.lobes.models.ECAPA_TDNN): a
    Conv1d with 'same' padding, reflect-padded as SpeechBrain's Conv1d
    (padding_mode reflect for kernels above 1), then ReLU, then
    BatchNorm1d. Returns b, cout, t."""

    def __init__(self, cin, cout, k=1, dil=1):
        super().__init__()
        pad = dil * (k - 1) // 2
        self.conv = nn.Conv1d(cin, cout, k, dilation=dil, padding=pad,
                              padding_mode="reflect" if pad else "zeros")
        self.norm = nn.BatchNorm1d(cout)

    def forward(self, x):                                   # b, cin, t
        return self.norm(F.relu(self.conv(x)))              # b, cout, t


class EcapaRes2Net(nn.Module):
    """SpeechBrain's Res2NetBlock (Gao et al. 2019's Res2Net in one
    dimension): the 512 channels chunked into scale 8 groups of 64; group
    0 passed through, group 1 through a TDNNBlock 64-64 (kernel 3 at the
    block's dilation), group i > 1 through its own TDNNBlock applied to
    group i plus the output of group i - 1, so 7 small dilated
    convolutions run in sequence; the 8 outputs concatenated. Returns b,
    512, t."""

    def __init__(self, c=512, scale=8, k=3, dil=1):
        super().__init__()
        self.scale = scale
        self.blocks = nn.ModuleList(EcapaTDNNBlock(c // scale, c // scale, k, dil) for _ in range(scale - 1))

    def forward(self, x):                                   # b, 512, t
        ys = []
        for i, xi in enumerate(torch.chunk(x, self.scale, dim=1)):   # 8 x (b, 64, t)
            if i == 0:
                yi = xi
            elif i == 1:
                yi = self.blocks[0](xi)                     # b, 64, t
            else:
                yi = self.blocks[i - 1](xi + yi)            # b, 64, t
            ys.append(yi)
        return torch.cat(ys, dim=1)                         # b, 512, t


class EcapaSERes2Block(nn.Module):
    """SpeechBrain's SERes2NetBlock: TDNNBlock 1x1 512-512, Res2Net block
    (scale 8, kernel 3, the block's dilation), TDNNBlock 1x1 512-512, then
    squeeze-excitation (SEBlock: mean over time, 1x1 Conv1d 512-128, ReLU,
    1x1 Conv1d 128-512, sigmoid, times the frames), plus the input
    (identity residual, in and out channels equal). Returns b, 512, t."""

    def __init__(self, c=512, scale=8, se=128, k=3, dil=1):
        super().__init__()
        self.tdnn1 = EcapaTDNNBlock(c, c, 1)
        self.res2net = EcapaRes2Net(c, scale, k, dil)
        self.tdnn2 = EcapaTDNNBlock(c, c, 1)
        self.se1, self.se2 = nn.Conv1d(c, se, 1), nn.Conv1d(se, c, 1)

    def forward(self, x):                                   # b, 512, t
        h = self.tdnn2(self.res2net(self.tdnn1(x)))         # b, 512, t
        s = h.mean(dim=2, keepdim=True)                     # b, 512, 1
        s = torch.sigmoid(self.se2(F.relu(self.se1(s))))    # b, 128, 1 -> b, 512, 1
        return s * h + x                                    # b, 512, t


def _ecapa_stats(x, w, eps=1e-12):
    """SpeechBrain's _compute_statistics: the mean and std of x (b, c, t)
    over time under weights w (b, 1 or c, t) summing to one per row,
    mean = sum w x, std = sqrt(max(sum w (x - mean)^2, eps)). Returns two
    b, c."""
    mean = (w * x).sum(2)                                   # b, c
    std = torch.sqrt((w * (x - mean.unsqueeze(2)).pow(2)).sum(2).clamp(eps))   # b, c
    return mean, std


class EcapaAttnStatsPool(nn.Module):
    """SpeechBrain's AttentiveStatisticsPooling with global context
    (Desplanques et al. 2020, Sec. 2.2): the utterance mean and std of the
    1,536-channel frames (under a length mask built from relative lengths,
    all 1.0 for fixed 2 s crops, as SpeechBrain's length_to_mask) repeated
    over time and concatenated with the frames (4,608), TDNNBlock 1x1
    4,608-128 (Conv1d, ReLU, BatchNorm1d), tanh, 1x1 Conv1d 128-1,536,
    masked_fill of padded frames with -inf, softmax over time per channel,
    then the attention-weighted mean and std concatenated. Returns b,
    3072."""

    def __init__(self, c=1536, attn=128):
        super().__init__()
        self.tdnn = EcapaTDNNBlock(3 * c, attn, 1)
        self.conv = nn.Conv1d(attn, c, 1)

    def forward(self, x):                                   # b, 1536, t
        b, _, t = x.shape
        lengths = torch.ones(b, device=x.device)            # b: relative lengths, full crops
        mask = (torch.arange(t, device=x.device).expand(b, t) < (lengths * t).unsqueeze(1)).unsqueeze(1)   # b, 1, t
        total = mask.sum(dim=2, keepdim=True).float()       # b, 1, 1
        mean, std = _ecapa_stats(x, mask / total)           # b, 1536 each: global context
        g = torch.cat([x, mean.unsqueeze(2).repeat(1, 1, t), std.unsqueeze(2).repeat(1, 1, t)], 1)   # b, 4608, t
        a = self.conv(torch.tanh(self.tdnn(g)))             # b, 128, t -> b, 1536, t
        a = F.softmax(a.masked_fill(~mask, float("-inf")), dim=2)   # b, 1536, t: weights over time
        mean, std = _ecapa_stats(x, a)                      # b, 1536 each
        return torch.cat([mean, std], 1)                    # b, 3072


class ECAPA(nn.Module):
    """ECAPA-TDNN (Desplanques, Thienpondt & Demuynck 2020, 'ECAPA-TDNN:
    Emphasized Channel Attention, Propagation and Aggregation in TDNN
    Based Speaker Verification'), C = 512, as SpeechBrain's ECAPA_TDNN
    (channels 512, 512, 512, 512, 1,536, kernels 5, 3, 3, 3, 1, dilations
    1, 2, 3, 4, 1, attention 128, Res2Net scale 8, SE 128, global context,
    192-dim embedding) with SpeechBrain's cosine Classifier over the 5,994
    VoxCeleb2 dev speakers: TDNNBlock 80-512 kernel 5; three
    EcapaSERes2Blocks at dilations 2, 3, 4; multi-layer feature
    aggregation (the three blocks' outputs concatenated, 1,536, TDNNBlock
    1x1 1,536-1,536); attentive statistics pooling (3,072); BatchNorm1d;
    Linear 3,072-192 (SpeechBrain's kernel-1 Conv1d on the single pooled
    frame); cosine similarity of the L2-normalised embedding with the
    L2-normalised rows of a 5,994 x 192 weight (xavier-uniform, no bias).
    PyTorch's default initialisation elsewhere. 7.35M parameters (6.19M in
    the embedding network). The additive angular margin is applied in the
    loss (_aam_loss). Returns the b, 5994 cosines."""

    def __init__(self, feats=80, c=512, mfa=1536, emb=192, speakers=5994, scale=8, se=128, attn=128):
        super().__init__()
        self.stem = EcapaTDNNBlock(feats, c, 5, 1)
        self.blocks = nn.ModuleList(EcapaSERes2Block(c, scale, se, 3, d) for d in (2, 3, 4))
        self.mfa = EcapaTDNNBlock(3 * c, mfa, 1)
        self.asp = EcapaAttnStatsPool(mfa, attn)
        self.asp_bn = nn.BatchNorm1d(2 * mfa)
        self.fc = nn.Linear(2 * mfa, emb)
        self.weight = nn.Parameter(torch.empty(speakers, emb))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x):                                   # b, 80, 200 log-mel frames
        h = self.stem(x)                                    # b, 512, 200
        outs = []
        for blk in self.blocks:
            h = blk(h)                                      # b, 512, 200
            outs.append(h)
        h = self.mfa(torch.cat(outs, 1))                    # b, 1536, 200 -> b, 1536, 200
        e = self.fc(self.asp_bn(self.asp(h)))               # b, 3072 -> b, 192 speaker embedding
        return F.linear(F.normalize(e), F.normalize(self.weight))   # b, 5994 cosines


def _aam_loss(out, y, margin=0.2, scale=30.0):
    """AAM-softmax (additive angular margin, ArcFace; SpeechBrain's
    AdditiveAngularMargin(margin 0.2, scale 30) inside LogSoftmaxWrapper,
    as its VoxCeleb ECAPA recipe): cosines clamped to +-(1 - 1e-7), sine
    from them, cos(theta + m) = cos cos m - sin sin m where cos >
    cos(pi - m) and cos - m sin(pi - m) otherwise, put in the target
    column through one-hot targets, scaled by 30, log_softmax, and KL
    divergence against the one-hot targets summed and divided by their sum
    (the batch), so cross-entropy with the margin on the true speaker."""
    cos = out.clamp(-1 + 1e-7, 1 - 1e-7)                    # b, 5994
    sin = torch.sqrt(1.0 - cos.pow(2))
    phi = cos * math.cos(margin) - sin * math.sin(margin)   # cos(theta + m)
    phi = torch.where(cos > math.cos(math.pi - margin), phi, cos - math.sin(math.pi - margin) * margin)
    t = F.one_hot(y, cos.shape[1]).float()                  # b, 5994
    logits = scale * (t * phi + (1.0 - t) * cos)            # b, 5994
    return F.kl_div(F.log_softmax(logits, dim=1), t, reduction="sum") / t.sum()


def ecapa(batch, device):
    """batch: 2 s crops of 80-dim log-mel filterbank features at a 10 ms
    hop (200 frames), standard normal (SpeechBrain's sentence-level mean
    normalisation is outside the model), as b x 80 x 200, and one of the
    5,994 VoxCeleb2 dev speakers per crop."""
    def make():
        return (torch.randn(batch, 80, 200, device=device),
                torch.randint(0, 5994, (batch,), device=device))
    return ECAPA(), make, _aam_loss, "adam"


# A 3-D Fourier neural operator (Li et al. 2021) for 2-D Navier-Stokes in
# space-time, the reference code's FNO3d: one rfftn / irfftn over the
# three last dimensions of b x 20 x 64 x 64 x 46 volumes per layer (in
# fp32, complex64 spectra, a non-power-of-two last dimension), the kept
# 8 x 8 x 8 modes of four corner blocks mixed by complex einsums with
# complex64 (cfloat) weight parameters (so complex batched matmuls, slice
# copies into a zero spectrum and an Adam update on complex tensors that
# holds almost all of the 6.6M real parameters), a 1x1x1 Conv3d path beside
# each, F.pad of the time axis and point-wise Linears over 163,840 points
# per sample.

class SpectralConv3d(nn.Module):
    """The FNO reference's SpectralConv3d (Li et al. 2021, 'Fourier Neural
    Operator for Parametric Partial Differential Equations',
    neuraloperator's fourier_3d.py): rfftn of the input over its last three
    dimensions, the modes [:8, :8, :8], [-8:, :8, :8], [:8, -8:, :8] and
    [-8:, -8:, :8] (the four corners of the x, y frequencies, the lowest 8
    of the halved t frequencies) each multiplied by its own learned complex
    weights (cin x cout x 8 x 8 x 8, complex64 parameters scale * U[0, 1)
    in real and imaginary parts, scale 1 / (cin * cout), as the reference)
    through einsum 'bixyz,ioxyz->boxyz', written into a zero spectrum and
    irfftn back to the input's size. The FFTs run in fp32 (the input cast
    to float; cuFFT has no bf16 transform of a non-power-of-two size), so
    under autocast the output is fp32."""

    def __init__(self, cin, cout, modes=(8, 8, 8)):
        super().__init__()
        self.cout, self.modes = cout, modes
        scale = 1.0 / (cin * cout)
        self.weights = nn.ParameterList(
            nn.Parameter(scale * torch.rand(cin, cout, *modes, dtype=torch.cfloat)) for _ in range(4))

    def forward(self, x):                                   # b, c, X, Y, T
        b, _, sx, sy, st = x.shape
        m1, m2, m3 = self.modes
        xf = torch.fft.rfftn(x.float(), dim=(-3, -2, -1))   # b, c, X, Y, T // 2 + 1 complex64
        out = torch.zeros(b, self.cout, sx, sy, st // 2 + 1, dtype=torch.cfloat, device=x.device)
        corners = ((slice(None, m1), slice(None, m2)), (slice(-m1, None), slice(None, m2)),
                   (slice(None, m1), slice(-m2, None)), (slice(-m1, None), slice(-m2, None)))
        for (ix, iy), w in zip(corners, self.weights):
            out[:, :, ix, iy, :m3] = torch.einsum("bixyz,ioxyz->boxyz", xf[:, :, ix, iy, :m3], w)   # b, cout, 8, 8, 8
        return torch.fft.irfftn(out, s=(sx, sy, st), dim=(-3, -2, -1))   # b, cout, X, Y, T fp32


class FNO3d(nn.Module):
    """The FNO reference's FNO3d for 2-D Navier-Stokes in space-time (Li et
    al. 2021, neuraloperator's fourier_3d.py, ns_V1e-3 setting: 64 x 64
    grid, 10 input steps, 40 output steps) at its published size: lift
    Linear 13-20 (the 10 past vorticity steps repeated over the 40 output
    times, plus the x, y, t coordinates), to channels-first and F.pad of the
    time axis by 6 at the end (40 -> 46, the domain is not periodic in
    time), four layers of SpectralConv3d(20, 20, 8 x 8 x 8 modes) plus a
    1x1x1 Conv3d 20-20, GELU after the first three, the padding cropped,
    channels-last, Linear 20-128, GELU, Linear 128-1. The reference's
    unused BatchNorm3d modules are left out. PyTorch's default
    initialisation elsewhere. 3.28M complex + 4,777 real parameters (6.56M
    real numbers). Returns b, 64, 64, 40, 1."""

    def __init__(self, cin=13, width=20, modes=(8, 8, 8), layers=4, pad=6):
        super().__init__()
        self.pad = pad
        self.fc0 = nn.Linear(cin, width)
        self.convs = nn.ModuleList(SpectralConv3d(width, width, modes) for _ in range(layers))
        self.ws = nn.ModuleList(nn.Conv3d(width, width, 1) for _ in range(layers))
        self.fc1 = nn.Linear(width, 128)
        self.fc2 = nn.Linear(128, 1)

    def forward(self, x):                                   # b, 64, 64, 40, 13
        x = self.fc0(x).permute(0, 4, 1, 2, 3)              # b, 20, 64, 64, 40
        x = F.pad(x, [0, self.pad])                         # b, 20, 64, 64, 46
        for i, (conv, w) in enumerate(zip(self.convs, self.ws)):
            x = conv(x) + w(x)                              # b, 20, 64, 64, 46
            if i < len(self.convs) - 1:
                x = F.gelu(x)
        x = x[..., :-self.pad].permute(0, 2, 3, 4, 1)       # b, 64, 64, 40, 20
        return self.fc2(F.gelu(self.fc1(x)))                # b, 64, 64, 40, 128 -> b, 64, 64, 40, 1


def fno3d(batch, device):
    """batch: the reference's Navier-Stokes input layout: 10 past
    vorticity fields on the 64 x 64 grid (random normal, as after its
    UnitGaussianNormalizer) repeated over the 40 output times, concatenated
    with the grid coordinates x, y in linspace(0, 1, 64) and t in
    linspace(0, 1, 41)[1:] (b x 64 x 64 x 40 x 13), and a random target
    vorticity for the 40 times (b x 64 x 64 x 40 x 1); loss the relative
    L2 error of each sample (the reference's LpLoss), Adam as the
    reference."""
    s, t_in, t = 64, 10, 40
    gx = torch.linspace(0, 1, s, device=device).view(1, s, 1, 1, 1).expand(batch, s, s, t, 1)
    gy = torch.linspace(0, 1, s, device=device).view(1, 1, s, 1, 1).expand(batch, s, s, t, 1)
    gt = torch.linspace(0, 1, t + 1, device=device)[1:].view(1, 1, 1, t, 1).expand(batch, s, s, t, 1)

    def make():
        a = torch.randn(batch, s, s, 1, t_in, device=device).expand(batch, s, s, t, t_in)   # b, 64, 64, 40, 10
        return (torch.cat([a, gx, gy, gt], -1),                                           # b, 64, 64, 40, 13
                torch.randn(batch, s, s, t, 1, device=device))
    return FNO3d(), make, _rel_l2_loss, "adam"


# BYOL (Grill et al. 2020) at STL-10's 96 x 96: an online ResNet-18 with
# BatchNorm2d, a 512-4,096-256 projector and a 256-4,096-256 predictor
# (Linear, BatchNorm1d, ReLU, Linear), and a target network (a deep copy
# of backbone and projector, requires_grad False) updated inside the
# forward by an exponential moving average (tau 0.996) of the online
# weights, two multi-tensor _foreach kernels over its 66 parameters, then
# four ResNet-18 passes per step: the online network on each view
# separately (BatchNorm statistics per view, as the reference), the
# target under no_grad on each, and the symmetric 2 - 2 cos regression
# loss between L2-normalised predictions and the other view's target
# projections.

class BYOLMLP(nn.Module):
    """BYOL's projector and predictor MLP (Grill et al. 2020, section 3.3;
    deepmind-research byol/utils/networks.py MLP): Linear cin -> 4,096,
    BatchNorm1d, ReLU, Linear 4,096 -> 256 (both Linears with bias, no
    BatchNorm on the output). PyTorch's default initialisation. Returns
    b, 256."""

    def __init__(self, cin, hidden=4096, out=256):
        super().__init__()
        self.fc1 = nn.Linear(cin, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, out)

    def forward(self, x):                                   # b, cin
        return self.fc2(F.relu(self.bn(self.fc1(x))))      # b, 4096 -> b, 256


class BYOLResNet18(nn.Module):
    """BYOL's encoder, a ResNet-18 (He et al. 2016; the paper's main
    results use ResNet-50, its ablations and STL-10 re-implementations
    such as solo-learn's ResNet-18) written out without torchvision, at
    96 x 96: the ImageNet stem (Conv2d 3 -> 64 7x7 stride 2, BatchNorm2d,
    ReLU, MaxPool2d 3 stride 2: 48 -> 24 x 24), four stages of two basic
    blocks (DilatedBasic at dilation 1: two 3x3 Conv-BN, ReLU, a 1x1
    Conv-BN shortcut where the shape changes) of 64, 128, 256 and 512
    channels, the last three strided (24 -> 12 -> 6 -> 3), the spatial
    mean, no classifier. PyTorch's default initialisation. 11.18M
    parameters. Returns b, 512."""

    def __init__(self, chans=(64, 64, 128, 256, 512)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, chans[0], 7, 2, 3, bias=False), nn.BatchNorm2d(chans[0]),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.stages = nn.Sequential(*[nn.Sequential(DilatedBasic(a, c, 1 if i == 0 else 2), DilatedBasic(c, c))
                                      for i, (a, c) in enumerate(zip(chans, chans[1:]))])

    def forward(self, x):                                   # b, 3, 96, 96
        h = self.stem(x)                                    # b, 64, 24, 24
        h = self.stages(h)                                  # b, 64, 24 -> 128, 12 -> 256, 6 -> b, 512, 3, 3
        return h.mean((2, 3))                               # b, 512


class BYOL(nn.Module):
    """BYOL, Bootstrap Your Own Latent (Grill et al. 2020), one training
    step's forward, following deepmind-research's byol_experiment.py: the
    online network (BYOLResNet18 backbone, BYOLMLP projector 512 -> 4,096
    -> 256) and predictor (BYOLMLP 256 -> 4,096 -> 256); the target network
    a copy.deepcopy of backbone and projector with requires_grad False,
    run in train mode (its BatchNorm on batch statistics) under no_grad.
    At the start of each forward the target's parameters are moved toward
    the online ones by an exponential moving average with tau 0.996 (the
    paper's base rate; its cosine schedule to 1 is left out), in place
    under no_grad by two multi-tensor ops, torch._foreach_mul_ (tau) and
    torch._foreach_add_ (online, alpha 1 - tau) (both in torch 1.13 and
    2.x); the reference updates after the optimizer step, here it happens
    before the next step's online pass (the same sequence of updates, the
    first a no-op on the copied weights); BatchNorm buffers are not
    averaged. Each view goes through the networks separately, as in the
    reference (BatchNorm statistics per view). 16.45M trained of 30.78M
    parameters. Returns 4, b, 256: the online predictions of views 1 and
    2, then the target projections of views 1 and 2 (no graph)."""

    def __init__(self, hidden=4096, dim=256, tau=0.996):
        super().__init__()
        self.tau = tau
        self.online = nn.Sequential(BYOLResNet18(), BYOLMLP(512, hidden, dim))
        self.predictor = BYOLMLP(dim, hidden, dim)
        self.target = copy.deepcopy(self.online)
        self.target.requires_grad_(False)

    @torch.no_grad()
    def update_target(self):
        """target = tau * target + (1 - tau) * online, over the parameters."""
        t, o = list(self.target.parameters()), list(self.online.parameters())
        torch._foreach_mul_(t, self.tau)
        torch._foreach_add_(t, o, alpha=1.0 - self.tau)

    def forward(self, x):                                   # (b, 3, 96, 96; b, 3, 96, 96)
        v1, v2 = x
        self.update_target()
        p1 = self.predictor(self.online(v1))                # b, 512 -> b, 256 -> b, 256
        p2 = self.predictor(self.online(v2))                # b, 256
        with torch.no_grad():
            z1 = self.target(v1)                            # b, 256
            z2 = self.target(v2)                            # b, 256
        return torch.stack([p1, p2, z1, z2])                # 4, b, 256


def _byol_loss(out, y):
    """BYOL's symmetric regression loss (the reference's regression_loss):
    per pair ||p/|p| - z/|z|||^2 = 2 - 2 cos(p, z) between the online
    prediction of one view and the (detached) target projection of the
    other, view 1's prediction against view 2's projection plus view 2's
    against view 1's, mean over the batch (y is unused)."""
    p1, p2, z1, z2 = out                                    # b, 256 each

    def reg(p, z):
        p, z = F.normalize(p, dim=-1), F.normalize(z.detach(), dim=-1)
        return 2 - 2 * (p * z).sum(-1)                      # b

    return (reg(p1, z2) + reg(p2, z1)).mean()


def byol(batch, device):
    """batch: two augmented 96x96 views of each image (random values in
    place of BYOL's crops, flips, colour jitter, blur and solarisation),
    no targets. The paper trains with LARS (lr 0.2 x batch / 256, weight
    decay 1.5e-6) at batch 4,096; here SGD with momentum, the suite's
    nearest optimizer."""
    def make():
        return (torch.randn(batch, 3, 96, 96, device=device),
                torch.randn(batch, 3, 96, 96, device=device)), None
    return BYOL(), make, _byol_loss, "sgd_momentum"

# Models added after the thirty-seventh round: CLIP ViT-B/32 (Radford et
# al. 2021) contrastive image-text pre-training at full depth, two
# sequence-first transformers through nn.MultiheadAttention (an image
# tower of 50 tokens x 768 after a 32x32 stride-32 patch Conv2d, and a
# causal text tower of 77 tokens x 512 over a 49,408 x 512 token table,
# the EOT token's feature picked by an argmax of the ids and an advanced-
# indexing gather), quick_gelu MLPs (x * sigmoid(1.702 x) as elementwise
# ops), projections by bare matmuls with parameter matrices, L2
# normalisation, a learned exp(logit_scale) and a b x b similarity GEMM
# whose rows and columns both go through cross-entropy.

def _quick_gelu(x):
    """CLIP's QuickGELU: x * sigmoid(1.702 x), written out as elementwise ops."""
    return x * torch.sigmoid(1.702 * x)


class CLIPBlock(nn.Module):
    """OpenAI CLIP's ResidualAttentionBlock (pre-LN), sequence-first as the
    reference (n, b, d): x + attn(ln_1(x)) through nn.MultiheadAttention
    (in_proj and out_proj with biases, need_weights=False, an optional
    additive float attention mask), then x + c_proj(quick_gelu(c_fc(ln_2(
    x)))) with c_fc d -> 4d. The LayerNorms run in fp32 (the reference's
    LayerNorm subclass casts its input to fp32; the residual stream is fp32
    here, so casting the result back is a no-op)."""

    def __init__(self, d, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads)
        self.ln_1, self.ln_2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.c_fc, self.c_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, mask=None):                        # n, b, d
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, need_weights=False, attn_mask=mask)[0]   # n, b, d
        return x + self.c_proj(_quick_gelu(self.c_fc(self.ln_2(x))))       # n, b, 4d -> n, b, d


class CLIPVisionTower(nn.Module):
    """CLIP's VisionTransformer (ViT-B/32 configuration): Conv2d 3 -> 768
    of kernel = stride = 32 without bias (224 -> 7 x 7 = 49 patches), a
    learned class embedding prepended (50 tokens), learned positions,
    ln_pre, 12 CLIPBlocks of 768 (12 heads of 64, MLP 3,072), ln_post on
    the class token, projection by x @ proj (768 x 512 parameter). The
    reference's init: class embedding, positions and proj scale * randn
    with scale = 768^-0.5; the blocks keep PyTorch's default init (the
    reference's initialize_parameters touches only the text tower).
    Returns b, 512."""

    def __init__(self, res=224, patch=32, width=768, layers=12, heads=12, out=512):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, patch, stride=patch, bias=False)
        scale = width ** -0.5
        self.class_embedding = nn.Parameter(scale * torch.randn(width))
        self.positional_embedding = nn.Parameter(scale * torch.randn((res // patch) ** 2 + 1, width))
        self.ln_pre, self.ln_post = Fp32LayerNorm(width), Fp32LayerNorm(width)
        self.blocks = nn.ModuleList(CLIPBlock(width, heads) for _ in range(layers))
        self.proj = nn.Parameter(scale * torch.randn(width, out))

    def forward(self, x):                                   # b, 3, 224, 224
        x = self.conv1(x)                                   # b, 768, 7, 7
        x = x.flatten(2).transpose(1, 2)                    # b, 49, 768
        cls = self.class_embedding.to(x.dtype).expand(x.shape[0], 1, -1)   # b, 1, 768
        x = torch.cat([cls, x], 1) + self.positional_embedding.to(x.dtype) # b, 50, 768
        x = self.ln_pre(x).transpose(0, 1)                  # 50, b, 768
        for blk in self.blocks:
            x = blk(x)                                      # 50, b, 768
        x = self.ln_post(x[0])                              # b, 768: the class token
        return x @ self.proj                                # b, 512


class CLIPTextTower(nn.Module):
    """CLIP's text transformer: token embedding 49,408 x 512 (N(0, 0.02))
    plus learned 77 x 512 positions (N(0, 0.01)), 12 CLIPBlocks of 512 (8
    heads of 64, MLP 2,048) under the causal mask (a 77 x 77 float buffer,
    -inf above the diagonal, added to the scores), ln_final, the feature
    at each caption's EOT token (the argmax of the ids, EOT being the
    largest id 49,407) gathered by advanced indexing, projection by x @
    text_projection (512 x 512, N(0, 512^-0.5)). The reference's init of
    the blocks: in_proj N(0, 512^-0.5), out_proj and c_proj N(0, 512^-0.5
    (2 x 12)^-0.5), c_fc N(0, (2 x 512)^-0.5). Returns b, 512."""

    def __init__(self, vocab=49408, ctx=77, width=512, layers=12, heads=8, out=512):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, width)
        self.positional_embedding = nn.Parameter(torch.empty(ctx, width))
        self.blocks = nn.ModuleList(CLIPBlock(width, heads) for _ in range(layers))
        self.ln_final = Fp32LayerNorm(width)
        self.text_projection = nn.Parameter(torch.empty(width, out))
        self.register_buffer("attn_mask", torch.full((ctx, ctx), float("-inf")).triu_(1), persistent=False)
        nn.init.normal_(self.token_embedding.weight, std=0.02)
        nn.init.normal_(self.positional_embedding, std=0.01)
        proj_std, attn_std, fc_std = width ** -0.5 * (2 * layers) ** -0.5, width ** -0.5, (2 * width) ** -0.5
        for blk in self.blocks:
            nn.init.normal_(blk.attn.in_proj_weight, std=attn_std)
            nn.init.normal_(blk.attn.out_proj.weight, std=proj_std)
            nn.init.normal_(blk.c_fc.weight, std=fc_std)
            nn.init.normal_(blk.c_proj.weight, std=proj_std)
        nn.init.normal_(self.text_projection, std=width ** -0.5)

    def forward(self, text):                                # b, 77 token ids
        x = self.token_embedding(text) + self.positional_embedding   # b, 77, 512
        x = x.transpose(0, 1)                               # 77, b, 512
        for blk in self.blocks:
            x = blk(x, self.attn_mask)                      # 77, b, 512
        x = self.ln_final(x.transpose(0, 1))                # b, 77, 512
        eot = x[torch.arange(x.shape[0], device=x.device), text.argmax(-1)]   # b, 512
        return eot @ self.text_projection                   # b, 512


class CLIP(nn.Module):
    """CLIP (Radford et al. 2021, 'Learning Transferable Visual Models From
    Natural Language Supervision'), ViT-B/32 configuration following
    openai/CLIP's model.py: a CLIPVisionTower (224x224, patch 32, 12
    layers of 768) and a CLIPTextTower (context 77, 12 causal layers of
    512), both projected to 512 and L2-normalised (x / x.norm), logits =
    exp(logit_scale) img @ txt^T with logit_scale learned from log(1 /
    0.07) (the training loop's clamp at log 100 is not part of the step).
    151.3M parameters. Returns the logits per image, b, b (the logits per
    text are their transpose)."""

    def __init__(self, layers=12):
        super().__init__()
        self.visual = CLIPVisionTower(layers=layers)
        self.text = CLIPTextTower(layers=layers)
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def forward(self, x):                                   # (b, 3, 224, 224; b, 77)
        images, text = x
        img = self.visual(images)                           # b, 512
        txt = self.text(text)                               # b, 512
        img = img / img.norm(dim=1, keepdim=True)
        txt = txt / txt.norm(dim=1, keepdim=True)
        return self.logit_scale.exp() * img @ txt.t()       # b, b


def _clip_loss(out, y):
    """CLIP's symmetric contrastive loss: cross-entropy of the logits per
    image (rows) and per text (columns) against the matching pair
    (y = arange(b)), averaged."""
    return (F.cross_entropy(out, y) + F.cross_entropy(out.t(), y)) / 2


def clip(batch, device):
    """batch: normalised 224x224 images (random values) and their captions
    as CLIP's tokenizer lays them out: <|startoftext|> 49,406, a body of
    5-75 BPE ids from 1 .. 49,405, <|endoftext|> 49,407, zero padding to
    77; the body lengths drawn once from a generator of seed 0 (fixed for
    the batch), the ids fresh in each make(). Targets arange(b): image i
    matches caption i."""
    ctx, sot, eot = 77, 49406, 49407
    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(5, ctx - 1, (batch, 1), generator=g).to(device)   # b, 1: body tokens

    def make():
        pos = torch.arange(ctx, device=device).unsqueeze(0)                     # 1, 77
        body = torch.randint(1, sot, (batch, ctx), device=device)               # b, 77
        text = body * ((pos >= 1) & (pos <= lengths))                           # b, 77: body, zeros elsewhere
        text[:, 0] = sot
        text.scatter_(1, lengths + 1, eot)                                      # EOT after the body
        return ((torch.randn(batch, 3, 224, 224, device=device), text),
                torch.arange(batch, device=device))
    return CLIP(), make, _clip_loss, "adamw"


# -- thirty-ninth round --------------------------------------------------------
# Models added after the thirty-eighth round: a Spatial Transformer Network
# classifier (Jaderberg et al. 2015) on 128 x 128 RGB images of 200 classes
# (the paper's CUB-200-2011 task, with plain CNNs in place of its Inception
# networks and at a smaller image size): a localisation CNN (four conv +
# max-pool + ReLU, Linear 8,192-128-6) regresses an affine map that starts
# at the identity, F.affine_grid turns it into a b x 128 x 128 x 2
# sampling grid and F.grid_sample (bilinear, zero padding, align_corners
# False) warps the input; the backward runs grid_sampler_2d_backward for
# the grid only (the images need no gradient) and affine_grid's backward
# (a bmm against the base grid), kernels the estimator's tables lack. The
# warped image goes through a 6-conv BatchNorm classifier (64 to 256
# channels at 128, 64 and 32 pixels, 2.44 GMACs per image) that, with its
# BatchNorm and ReLU passes over 64 x 128 x 128 maps, holds most of the
# step's time; the localisation net adds 0.36 GMACs.

class STNLocalisation(nn.Module):
    """The STN's localisation network, laid out as the PyTorch spatial
    transformer tutorial's (conv, max-pool 2, ReLU per stage, then a
    two-layer regressor) scaled to 128 x 128 RGB: Conv2d 3-32 5x5, 32-64
    5x5, 64-128 3x3 and 128-128 3x3 ('same' padding), each followed by
    MaxPool2d 2 and ReLU (128 -> 64 -> 32 -> 16 -> 8), flatten 8,192,
    Linear 8,192-128, ReLU, Linear 128-6. The last Linear starts with zero
    weights and the identity transform [1, 0, 0, 0, 1, 0] as its bias, as
    the paper and the tutorial, so that the first steps see the unwarped
    image. Returns b, 2, 3."""

    def __init__(self, size=128, chans=(3, 32, 64, 128, 128), kernels=(5, 5, 3, 3), hidden=128):
        super().__init__()
        layers = []
        for cin, cout, k in zip(chans, chans[1:], kernels):
            layers += [nn.Conv2d(cin, cout, k, padding=k // 2), nn.MaxPool2d(2), nn.ReLU(inplace=True)]
        self.features = nn.Sequential(*layers)
        side = size >> len(kernels)                         # 8
        self.fc1 = nn.Linear(chans[-1] * side * side, hidden)
        self.fc2 = nn.Linear(hidden, 6)
        nn.init.zeros_(self.fc2.weight)
        with torch.no_grad():
            self.fc2.bias.copy_(torch.tensor([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]))

    def forward(self, x):                                   # b, 3, 128, 128
        h = self.features(x).flatten(1)                     # b, 128 x 8 x 8 = 8192
        return self.fc2(F.relu(self.fc1(h))).view(-1, 2, 3) # b, 128 -> b, 2, 3


class STN(nn.Module):
    """Spatial Transformer Network classifier (Jaderberg, Simonyan,
    Zisserman & Kavukcuoglu 2015, 'Spatial Transformer Networks'): one
    affine spatial transformer at the input of the classifier, as the
    paper's SVHN ST-CNN Single and the PyTorch tutorial. The localisation
    net's 2 x 3 matrix is taken to fp32 before F.affine_grid (a bf16 grid
    would round the sample positions to a quarter of a pixel near the
    borders at 128), F.grid_sample
    bilinear with zero padding and align_corners=False resamples the image
    at its own 128 x 128 size; the classifier, a VGG-style CNN with
    BatchNorm: Conv2d 3x3 3-64, 64-64 at 128, MaxPool2d 2, 128, 128 at 64,
    MaxPool2d 2, 256, 256 at 32, each Conv (no bias) + BatchNorm2d + ReLU,
    global average pooling, Linear 256-200. PyTorch's default
    initialisation elsewhere. 2.52M parameters (1.32M in the localisation
    net). Returns b, 200."""

    def __init__(self, size=128, classes=200, chans=(3, 64, 64, "M", 128, 128, "M", 256, 256)):
        super().__init__()
        self.loc = STNLocalisation(size)
        layers, cin = [], chans[0]
        for c in chans[1:]:
            if c == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(cin, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True)]
                cin = c
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):                                   # b, 3, 128, 128
        theta = self.loc(x).float()                         # b, 2, 3
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)   # b, 128, 128, 2 in [-1, 1]
        x = F.grid_sample(x.float(), grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        h = self.features(x)                                # b, 64, 128 -> 128, 64 -> b, 256, 32, 32
        return self.fc(h.mean((2, 3)))                      # b, 256 -> b, 200


def stn(batch, device):
    """batch: normalised 128x128 RGB images (random values; CUB-200-2011
    birds in the paper's fine-grained experiment) and one of 200 classes
    per image."""
    def make():
        return (torch.randn(batch, 3, 128, 128, device=device),
                torch.randint(0, 200, (batch,), device=device))
    return STN(), make, _cls_loss, "sgd_momentum"


# Nystromformer (Xiong et al. 2021) for sequence classification over 4,096
# tokens: per layer and head the softmax attention is approximated through
# 64 landmarks (segment means of 64 queries and keys): three softmax
# kernels (b x 8 x 4,096 x 64, 64 x 64 and 64 x 4,096), the Moore-Penrose
# pseudo-inverse of the 64 x 64 one by 6 Newton-Schulz iterations written
# out (24 batched 64 x 64 matmuls and the I-scaled subtractions between
# them, tiny kernels in a sequential chain), and a depthwise Conv2d of
# kernel 33 x 1 along the sequence on the values. Attention costs a few %
# of the FLOPs: the step's time goes to the q, k, v, output and FFN GEMMs
# over b x 4,096 tokens of 512, LayerNorm, GELU and dropout passes.

def _nystrom_pinv(a, iters=6):
    """The Moore-Penrose pseudo-inverse of a (b, heads, m, m) by Newton-
    Schulz iterations as Nystromformer's iterative_inv (Xiong et al. 2021,
    eq. 13, after Razavi et al. 2014): Z0 = A^T / (||A||_1 ||A||_inf), the
    largest column sum times the largest row sum over the whole batch (the
    reference's 'original' initialisation; it drops the row sum, which is
    1 for the rows of a softmax, computed here as the paper writes it),
    then Z <- 1/4 Z (13 I - A Z (15 I - A Z (7 I - A Z))), four matmuls an
    iteration. Returns b, heads, m, m."""
    eye = torch.eye(a.shape[-1], device=a.device)          # m, m in fp32 as the reference (1.13's CPU has no bf16 eye)
    z = a.transpose(-1, -2) / (a.sum(-2).max() * a.sum(-1).max())  # b, heads, m, m
    for _ in range(iters):
        az = a @ z
        z = 0.25 * z @ (13 * eye - az @ (15 * eye - az @ (7 * eye - az)))
    return z


class NystromAttention(nn.Module):
    """Nystromformer self-attention (Xiong et al. 2021, 'Nystromformer: A
    Nystrom-Based Algorithm for Approximating Self-Attention'; the authors'
    LRA code, mlpen/Nystromformer NystromAttention inside its Attention
    wrapper): W_q, W_k, W_v Linears 512-512 (8 heads of 64), q and k each
    scaled by 64^-1/4; 64 landmarks per head by segment means (the 4,096
    positions reshaped into 64 segments of 64 and averaged); kernel 1 =
    softmax(q k~^T) (4,096 x 64), kernel 2 = softmax(q~ k~^T) (64 x 64),
    kernel 3 = softmax(q~ k^T) (64 x 4,096); out = (kernel 1
    pinv(kernel 2)) (kernel 3 v) with the pinv by 6 Newton-Schulz
    iterations; plus the reference's skip on the values, a depthwise
    Conv2d(8, 8, (33, 1), padding (16, 0), groups 8, no bias) along the
    sequence; output Linear 512-512. Every sequence is full length, so the
    reference's padding mask (products with ones) is left out. Returns b,
    n, 512."""

    def __init__(self, d=512, heads=8, landmarks=64, iters=6, conv_k=33):
        super().__init__()
        self.heads, self.dh, self.landmarks, self.iters = heads, d // heads, landmarks, iters
        self.wq, self.wk, self.wv = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.conv = nn.Conv2d(heads, heads, (conv_k, 1), padding=(conv_k // 2, 0), bias=False, groups=heads)
        self.out = nn.Linear(d, d)

    def forward(self, x):                                   # b, n, 512
        b, n, _ = x.shape
        h, dh, m = self.heads, self.dh, self.landmarks
        q, k, v = (w(x).view(b, n, h, dh).transpose(1, 2) for w in (self.wq, self.wk, self.wv))   # b, 8, n, 64
        q, k = q / dh ** 0.25, k / dh ** 0.25
        ql = q.reshape(b, h, m, n // m, dh).mean(-2)        # b, 8, 64, 64: landmark queries
        kl = k.reshape(b, h, m, n // m, dh).mean(-2)        # b, 8, 64, 64: landmark keys
        k1 = F.softmax(q @ kl.transpose(-1, -2), dim=-1)    # b, 8, n, 64
        k2 = F.softmax(ql @ kl.transpose(-1, -2), dim=-1)   # b, 8, 64, 64
        k3 = F.softmax(ql @ k.transpose(-1, -2), dim=-1)    # b, 8, 64, n
        o = (k1 @ _nystrom_pinv(k2, self.iters)) @ (k3 @ v)  # b, 8, n, 64 -> (b, 8, n, 64)(b, 8, 64, 64)
        o = o + self.conv(v)                                # b, 8, n, 64: depthwise over the sequence
        return self.out(o.transpose(1, 2).reshape(b, n, h * dh))   # b, n, 512


class NystromLayer(nn.Module):
    """The LRA reference's pre-LN transformer block around
    NystromAttention: x + dropout(attn(LN(x))), then x + the MLP block
    Linear 512-2,048, GELU, dropout, Linear 2,048-512, dropout (0.1). The
    LayerNorms run in fp32 (Fp32LayerNorm)."""

    def __init__(self, d=512, heads=8, ff=2048, landmarks=64, drop=0.1):
        super().__init__()
        self.ln1, self.ln2 = Fp32LayerNorm(d), Fp32LayerNorm(d)
        self.attn = NystromAttention(d, heads, landmarks)
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.drop = drop

    def forward(self, x):                                   # b, n, 512
        x = x + F.dropout(self.attn(self.ln1(x)), self.drop, self.training)
        h = F.dropout(F.gelu(self.fc1(self.ln2(x))), self.drop, self.training)   # b, n, 2048
        return x + F.dropout(self.fc2(h), self.drop, self.training)             # b, n, 512


class Nystromformer(nn.Module):
    """A Nystromformer encoder for sequence classification (Xiong et al.
    2021; the layout of the authors' LRA models): token embedding 30,000 x
    512 plus learned 4,096 x 512 positions (both N(0, 0.02)), dropout 0.1,
    4 NystromLayers of 512 (8 heads of 64, 64 landmarks, FFN 2,048 GELU),
    a final fp32 LayerNorm, the mean over the 4,096 positions and Linear
    512-10. 30.1M parameters (17.5M in the embeddings). Returns b, 10."""

    def __init__(self, vocab=30000, seq=4096, d=512, layers=4, heads=8, ff=2048, landmarks=64,
                 classes=10, drop=0.1):
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        nn.init.normal_(self.emb.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)
        self.layers = nn.ModuleList(NystromLayer(d, heads, ff, landmarks, drop) for _ in range(layers))
        self.ln = Fp32LayerNorm(d)
        self.head = nn.Linear(d, classes)
        self.drop = drop

    def forward(self, ids):                                 # b, 4096 token ids
        x = F.dropout(self.emb(ids) + self.pos.weight[:ids.shape[1]], self.drop, self.training)   # b, 4096, 512
        for layer in self.layers:
            x = layer(x)                                    # b, 4096, 512
        return self.head(self.ln(x).mean(1))                # b, 512 -> b, 10


def nystromformer(batch, device):
    """batch: sequences of 4,096 token ids uniform in the 30,000-token
    vocabulary (all full length, no padding) and one of 10 classes per
    sequence."""
    seq, vocab, classes = 4096, 30000, 10

    def make():
        return (torch.randint(0, vocab, (batch, seq), device=device),
                torch.randint(0, classes, (batch,), device=device))
    return Nystromformer(vocab, seq), make, _cls_loss, "adamw"


# A spiking convolutional network trained with surrogate gradients (the
# SpikingJelly layout of Fang et al. 2021's CIFAR-10 networks, with fixed-
# tau LIF neurons) on 3 x 32 x 32 images over 16 time steps in a Python
# loop, one step at a time through all layers: the image's Conv2d 3-128
# + BatchNorm2d once, then at every step a LIF on it and 5 Conv2d 3x3 of
# 128-256 channels, each with its BatchNorm2d called per step and followed
# by a LIF neuron written out as elementwise ops (charge, threshold
# through a custom autograd.Function, hard reset), average pooling, and a
# Linear head with LIF output neurons whose spikes are averaged over the
# steps. Thousands of small kernels a step (conv, BN, 5-6 elementwise ops
# per LIF and their backward, including the sigmoid surrogate's), so the
# host's pace matters as much as the 14.5 forward GFLOPs per image of
# convolutions.

class _SigmoidSurrogateSpike(torch.autograd.Function):
    """The spike's Heaviside step heaviside(x) = (x >= 0) in the forward;
    in the backward the derivative of sigmoid(alpha x) in its place
    (SpikingJelly's surrogate.Sigmoid, alpha 4): grad alpha s (1 - s)."""

    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return (x >= 0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        s = torch.sigmoid(ctx.alpha * x)
        return grad * ctx.alpha * s * (1 - s), None


def _lif(x, v, tau=2.0, v_th=1.0, alpha=4.0):
    """One step of a leaky integrate-and-fire neuron as SpikingJelly's
    LIFNode (decay_input, v_reset 0, hard reset, reset not detached):
    charge v = v + (x - v) / tau, spike = heaviside(v - v_th) with the
    sigmoid surrogate gradient, reset v = v (1 - spike). v is 0.0 before
    the first step. Returns the spikes and the new membrane potential."""
    v = v + (x - v) / tau
    spike = _SigmoidSurrogateSpike.apply(v - v_th, alpha)
    return spike, v * (1 - spike)


class SpikingCNN(nn.Module):
    """A spiking CNN for CIFAR-10 (Fang et al. 2021, 'Incorporating
    Learnable Membrane Time Constant to Enhance Learning of Spiking Neural
    Networks', as SpikingJelly's CIFAR-10 example lays it out, with plain
    LIF neurons of tau 2 in place of PLIF and average pooling): the static
    image's input current, Conv2d 3-128 3x3 + BatchNorm2d, computed once
    (the same at every step, as the static_conv of SpikingJelly's examples), then for each
    of the 16 time steps: LIF; Conv 128-128, LIF at 32 x 32; AvgPool2d 2;
    Conv 128-256, LIF, Conv 256-256, LIF at 16 x 16; AvgPool2d 2; Conv
    256-256, LIF, Conv 256-256, LIF at 8 x 8; AvgPool2d 2; flatten 4,096;
    Linear 4,096-10 (no bias); LIF. Each Conv is 3x3 'same' without bias
    and followed by its BatchNorm2d, called once a step (statistics per
    step, 16 running-stat updates a forward). The membrane potentials
    start at 0 in every forward (SpikingJelly's reset_net between
    batches). PyTorch's default initialisation. 2.26M parameters. Returns
    the output neurons' firing rates, the spike counts over the 16 steps
    divided by 16, b, 10."""

    def __init__(self, steps=16, classes=10, chans=(128, 128, "A", 256, 256, "A", 256, 256, "A"), size=32):
        super().__init__()
        self.steps = steps
        self.stem = nn.Sequential(nn.Conv2d(3, chans[0], 3, padding=1, bias=False), nn.BatchNorm2d(chans[0]))
        self.layers, cin = nn.ModuleList(), chans[0]
        for c in chans[1:]:
            if c == "A":
                self.layers.append(nn.AvgPool2d(2))
                size //= 2
            else:
                self.layers.append(nn.Sequential(nn.Conv2d(cin, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)))
                cin = c
        self.fc = nn.Linear(cin * size * size, classes, bias=False)

    def forward(self, x):                                   # b, 3, 32, 32
        cur = self.stem(x)                                  # b, 128, 32, 32: the input current of every step
        spiking = [not isinstance(layer, nn.AvgPool2d) for layer in self.layers]
        vs = [0.0] * (sum(spiking) + 2)                     # membrane potentials: stem, 5 convs, output
        rate = 0.0
        for _ in range(self.steps):
            s, vs[0] = _lif(cur, vs[0])                     # b, 128, 32, 32 spikes
            j = 1
            for layer, sp in zip(self.layers, spiking):
                s = layer(s)                                # conv + BN, or a 2x2 average
                if sp:
                    s, vs[j] = _lif(s, vs[j])
                    j += 1                                  # 128 @ 32 -> 256 @ 16 -> 256 @ 8 -> b, 256, 4, 4
            out, vs[j] = _lif(self.fc(s.flatten(1)), vs[j])  # b, 10 output spikes
            rate = rate + out
        return rate / self.steps                            # b, 10 firing rates


def snn(batch, device):
    """batch: normalised 32x32 RGB images (random values in place of
    CIFAR-10) and their labels one-hot over 10 classes: SpikingJelly's
    examples regress the firing rates onto the one-hot labels by MSE.
    Adam as the reference."""
    def make():
        return (torch.randn(batch, 3, 32, 32, device=device),
                F.one_hot(torch.randint(0, 10, (batch,), device=device), 10).float())
    return SpikingCNN(), make, _mse_loss, "adam"


# Second-order MAML (Finn et al. 2017) on 5-way 1-shot Omniglot-sized
# tasks: the classic 4-block conv net of 64 channels written functionally
# so that each task's inner loop (5 SGD steps on its 5 support images)
# runs on fast weights, every inner gradient taken by torch.autograd.grad
# with create_graph=True; the meta-gradient then flows back through all
# inner updates, so the step's backward runs the double backward of
# convolution (convolutions with the gradients as weights), BatchNorm in
# training mode (batchnorm_double_backward), ReLU and max-pool (a gather
# of the pooled positions) and cross-entropy, per task in a Python loop
# over the meta-batch. The tensors are tiny (5 and 75 images of 28 x 28,
# 112K parameters), so the step is thousands of small kernels paced by the
# host.

class MAML(nn.Module):
    """Second-order MAML (Finn, Abbeel & Levine 2017, 'Model-Agnostic
    Meta-Learning for Fast Adaptation of Deep Networks') for N-way K-shot
    classification, the paper's Omniglot network laid out functionally
    (explicit weights passed to F.conv2d / F.batch_norm / F.linear, as the
    reference's forward(inp, weights)): 4 blocks of Conv2d 3x3 64 'same',
    BatchNorm without running statistics (F.batch_norm(x, None, None,
    weight, bias, training=True): statistics of the batch at hand, support
    or query), ReLU and MaxPool2d 2 (28 -> 14 -> 7 -> 3 -> 1; the
    reference strides its Omniglot convolutions and max-pools its
    MiniImagenet ones), flatten 64, Linear 64-5. Conv and Linear weights
    xavier-uniform (the reference's convolution initialiser), zero
    biases, BatchNorm weight 1, bias 0. Per task in a Python loop over
    the meta-batch: the fast weights start as the meta-parameters; 5
    inner steps
    (the paper trains Omniglot with 1, tests with 3; 5 as later MAML++
    setups) of cross-entropy on the 5 support images, gradients by
    torch.autograd.grad(create_graph=True), w <- w - 0.4 g; then the
    adapted weights classify the task's 75 query images. 112K parameters.
    Returns the query logits, tasks, 75, 5."""

    def __init__(self, ways=5, hidden=64, blocks=4, inner_steps=5, inner_lr=0.4):
        super().__init__()
        self.inner_steps, self.inner_lr = inner_steps, inner_lr
        params, cin = [], 1
        for _ in range(blocks):
            w = torch.empty(hidden, cin, 3, 3)
            nn.init.xavier_uniform_(w)
            params += [w, torch.zeros(hidden), torch.ones(hidden), torch.zeros(hidden)]   # conv w, b; BN w, b
            cin = hidden
        w = torch.empty(ways, hidden)
        nn.init.xavier_uniform_(w)
        self.params = nn.ParameterList(nn.Parameter(p) for p in params + [w, torch.zeros(ways)])

    @staticmethod
    def net(x, p):
        """The functional forward of the 4-block net on weights p."""
        for i in range(0, len(p) - 2, 4):                   # 1, 28 -> 64, 14 -> 7 -> 3 -> 64, 1
            x = F.conv2d(x, p[i], p[i + 1], padding=1)
            x = F.batch_norm(x, None, None, p[i + 2], p[i + 3], training=True)
            x = F.max_pool2d(F.relu(x), 2)
        return F.linear(x.flatten(1), p[-2], p[-1])         # n, 5

    def forward(self, x):                                   # (tasks, 5, 1, 28, 28; tasks, 5; tasks, 75, 1, 28, 28)
        support, labels, query = x
        outs = []
        for t in range(support.shape[0]):
            fast = list(self.params)
            for _ in range(self.inner_steps):
                loss = F.cross_entropy(self.net(support[t], fast).float(), labels[t])
                grads = torch.autograd.grad(loss, fast, create_graph=True)
                fast = [w - self.inner_lr * g for w, g in zip(fast, grads)]
            outs.append(self.net(query[t], fast))           # 75, 5
        return torch.stack(outs)                            # tasks, 75, 5


def _maml_loss(out, y):
    """The meta-objective: cross-entropy of every task's query logits under
    its adapted weights, averaged over tasks and queries (the same number
    of queries per task, so the mean of the per-task means)."""
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def maml(batch, device):
    """batch: the meta-batch, tasks of 5-way 1-shot Omniglot-sized
    classification (random 1 x 28 x 28 images in place of Omniglot
    characters): per task 5 support images labelled 0 .. 4 and 75 query
    images, 15 per class, labelled class-major. Adam with the outer lr
    1e-3 in the reference (the suite's Adam uses its own lr; the kernels
    are the same)."""
    ways, queries = 5, 15

    def make():
        labels = torch.arange(ways, device=device)
        return ((torch.randn(batch, ways, 1, 28, 28, device=device), labels.expand(batch, ways),
                 torch.randn(batch, ways * queries, 1, 28, 28, device=device)),
                labels.repeat_interleave(queries).expand(batch, ways * queries))
    return MAML(ways), make, _maml_loss, "adam"


# FastSpeech 2 (Ren et al. 2021) text-to-mel training, the layout of
# ming024's public implementation with the LJSpeech configuration: an
# encoder of 4 FFT blocks over ~130 phonemes, a variance adaptor (three
# Conv1d predictors for log-duration, pitch and energy; pitch and energy
# targets quantised by torch.bucketize into 256 bins and embedded), a
# length regulator that expands each phoneme by its ground-truth duration
# with torch.repeat_interleave per utterance (an index_select whose
# backward is an index_add; output_size given, so no device sync) and F.pad
# to the batch's longest mel (~900 frames at batch 48), then 6 FFT blocks
# at the frame level and Linear 256-80. Most of the step is the decoder's
# Conv1d 256-1,024 of kernel 9 and 1,024-256 of kernel 1 over b x 900
# frames, its attention of 2 heads of 128 (b x 2 x 900 x 900 scores,
# masked_fill, softmax), post-LN LayerNorms, masked_fill of the padding
# and dropout.

def _fs2_positions(length, d):
    """FastSpeech 2's (and the Transformer's) sinusoid table as ming024's
    get_sinusoid_encoding_table: pos / 10000^(2 (i // 2) / d), sines at
    the even channels, cosines at the odd ones. Returns length, d."""
    pos = torch.arange(length, dtype=torch.float32).unsqueeze(1)   # length, 1
    i = torch.arange(d)
    angle = pos / torch.pow(10000.0, (2 * (i // 2)).float() / d)   # length, d
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


class FS2Attention(nn.Module):
    """ming024's MultiHeadAttention of FastSpeech 2 (post-LN): w_qs, w_ks,
    w_vs Linears 256-256 (2 heads of 128), scores q k^T / sqrt(128), keys
    at the padding filled with -inf, softmax, matmul with v, Linear
    256-256, dropout, residual, fp32 LayerNorm. Returns b, n, 256."""

    def __init__(self, d=256, heads=2, drop=0.2):
        super().__init__()
        self.heads, self.dk, self.drop = heads, d // heads, drop
        self.w_qs, self.w_ks, self.w_vs = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.fc = nn.Linear(d, d)
        self.ln = Fp32LayerNorm(d)

    def forward(self, x, pad):                              # b, n, 256; b, n (True at the padding)
        b, n, d = x.shape
        q, k, v = (w(x).view(b, n, self.heads, self.dk).transpose(1, 2) for w in (self.w_qs, self.w_ks, self.w_vs))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(self.dk)  # b, 2, n, n
        a = F.softmax(s.masked_fill(pad[:, None, None, :], float("-inf")), dim=-1)
        o = (a @ v).transpose(1, 2).reshape(b, n, d)        # b, n, 256
        return self.ln(F.dropout(self.fc(o), self.drop, self.training) + x)


class FS2FFTBlock(nn.Module):
    """FastSpeech's FFT block as ming024's FFTBlock: FS2Attention, padding
    zeroed; the position-wise feed-forward of two Conv1d (256-1,024 kernel
    9, ReLU, 1,024-256 kernel 1, on the transposed b x 256 x n), dropout,
    residual, fp32 LayerNorm, padding zeroed. Returns b, n, 256."""

    def __init__(self, d=256, heads=2, ff=1024, kernels=(9, 1), drop=0.2):
        super().__init__()
        self.attn = FS2Attention(d, heads, drop)
        self.conv1 = nn.Conv1d(d, ff, kernels[0], padding=kernels[0] // 2)
        self.conv2 = nn.Conv1d(ff, d, kernels[1], padding=kernels[1] // 2)
        self.ln = Fp32LayerNorm(d)
        self.drop = drop

    def forward(self, x, pad):                              # b, n, 256; b, n
        x = self.attn(x, pad).masked_fill(pad.unsqueeze(-1), 0.0)
        h = self.conv2(F.relu(self.conv1(x.transpose(1, 2)))).transpose(1, 2)   # b, 1024, n -> b, n, 256
        x = self.ln(F.dropout(h, self.drop, self.training) + x)
        return x.masked_fill(pad.unsqueeze(-1), 0.0)


class FS2VariancePredictor(nn.Module):
    """FastSpeech 2's variance predictor (Ren et al. 2021, section 2.3;
    ming024's VariancePredictor): 2 x (Conv1d 256-256 kernel 3 'same',
    ReLU, fp32 LayerNorm, dropout 0.5), Linear 256-1, padding zeroed.
    Returns b, n."""

    def __init__(self, d=256, filters=256, k=3, drop=0.5):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv1d(d, filters, k, padding=k // 2), nn.Conv1d(filters, filters, k, padding=k // 2)
        self.ln1, self.ln2 = Fp32LayerNorm(filters), Fp32LayerNorm(filters)
        self.linear = nn.Linear(filters, 1)
        self.drop = drop

    def forward(self, x, pad):                              # b, n, 256; b, n
        for conv, ln in ((self.conv1, self.ln1), (self.conv2, self.ln2)):
            x = F.dropout(ln(F.relu(conv(x.transpose(1, 2))).transpose(1, 2)), self.drop, self.training)
        return self.linear(x).squeeze(-1).masked_fill(pad, 0.0)   # b, n


class FastSpeech2(nn.Module):
    """FastSpeech 2 (Ren, Hu, Tan, Qin, Zhao, Zhao & Liu 2021, 'FastSpeech
    2: Fast and High-Quality End-to-End Text to Speech'), ming024's
    FastSpeech2 with its LJSpeech configuration: phoneme embedding 360 x
    256 (padding id 0) plus the sinusoid table; encoder of 4 FS2FFTBlocks
    (2 heads, Conv1d 1,024 kernels 9 and 1, dropout 0.2); the variance
    adaptor: log-duration, pitch and energy FS2VariancePredictors, pitch
    and energy at the phoneme level (the configuration's feature level
    'phoneme_level'), each target bucketized into 256 bins
    over 255 linearly spaced boundaries (a buffer; +-4 standard deviations
    of the z-scored targets) and embedded (nn.Embedding 256 x 256), pitch
    embedding added before the energy predictor runs, as the reference;
    the length regulator: per utterance torch.repeat_interleave of the
    phoneme states by the ground-truth durations (output_size the known
    mel length) and F.pad to the batch's longest, then the sinusoid table
    again; decoder of 6 FS2FFTBlocks under the mel padding mask; Linear
    256-80. The reference's PostNet (a Tacotron 2 postnet) is not in the
    paper and left out. PyTorch's default initialisation. 30.3M
    parameters. Returns the mels and the variance predictions flattened
    and concatenated, b x (T * 80 + n * 3) (mels b, T, 80 first, then b,
    n, 3 of log-duration, pitch, energy); the loss splits them."""

    def __init__(self, symbols=360, d=256, enc_layers=4, dec_layers=6, heads=2, ff=1024, mels=80,
                 bins=256, max_len=2000, drop=0.2):
        super().__init__()
        self.emb = nn.Embedding(symbols, d, padding_idx=0)
        self.register_buffer("pos", _fs2_positions(max_len, d), persistent=False)
        self.encoder = nn.ModuleList(FS2FFTBlock(d, heads, ff, drop=drop) for _ in range(enc_layers))
        self.duration, self.pitch, self.energy = (FS2VariancePredictor(d) for _ in range(3))
        self.register_buffer("pitch_bins", torch.linspace(-4.0, 4.0, bins - 1), persistent=False)
        self.register_buffer("energy_bins", torch.linspace(-4.0, 4.0, bins - 1), persistent=False)
        self.pitch_emb, self.energy_emb = nn.Embedding(bins, d), nn.Embedding(bins, d)
        self.decoder = nn.ModuleList(FS2FFTBlock(d, heads, ff, drop=drop) for _ in range(dec_layers))
        self.mel = nn.Linear(d, mels)

    def forward(self, inp):
        text, src_pad, durations, pitch, energy, mel_pad, mel_lens = inp   # b, n x 5 (n ~ 140); b, T; b ints
        n, t = text.shape[1], mel_pad.shape[1]
        x = self.emb(text) + self.pos[:n]                   # b, n, 256
        for blk in self.encoder:
            x = blk(x, src_pad)                             # b, n, 256
        log_d = self.duration(x, src_pad)                   # b, n
        p = self.pitch(x, src_pad)                          # b, n
        x = x + self.pitch_emb(torch.bucketize(pitch, self.pitch_bins))
        e = self.energy(x, src_pad)                         # b, n
        x = x + self.energy_emb(torch.bucketize(energy, self.energy_bins))
        # the padded phonemes have duration 0, so each utterance expands to its mel length
        x = torch.stack([F.pad(torch.repeat_interleave(x[i], durations[i], dim=0, output_size=m), (0, 0, 0, t - m))
                         for i, m in enumerate(mel_lens)])  # b, T, 256
        x = x + self.pos[:t]
        for blk in self.decoder:
            x = blk(x, mel_pad)                             # b, T, 256
        mel = self.mel(x)                                   # b, T, 80
        var = torch.stack([log_d, p, e], -1).to(mel.dtype)  # b, n, 3
        return torch.cat([mel.flatten(1), var.flatten(1)], 1)   # b, T * 80 + n * 3


def _fastspeech2_loss(out, y):
    """FastSpeech 2's loss as ming024's FastSpeech2Loss without the postnet
    term: L1 of the mels over the real frames, plus MSE of the predicted
    log-durations against log(d + 1), of pitch and of energy over the real
    phonemes. The reference selects the real positions by masked_select;
    here the padding is weighted 0 and the sums divided by the counts (the
    same values, no data-dependent shapes)."""
    mel, log_d, pitch, energy, src_keep, mel_keep = y       # b, T, 80; b, n x 3; b, n; b, T
    b, t, m = mel.shape
    n = log_d.shape[1]
    mel_out, var = out[:, :t * m].reshape(b, t, m), out[:, t * m:].reshape(b, n, 3)
    loss = ((mel_out - mel).abs() * mel_keep.unsqueeze(-1)).sum() / (mel_keep.sum() * m)
    for i, target in enumerate((log_d, pitch, energy)):
        loss = loss + ((var[..., i] - target).pow(2) * src_keep).sum() / src_keep.sum()
    return loss


def fastspeech2(batch, device):
    """batch: utterances of 120-140 phonemes (ids in 1 .. 359, right-
    padded with 0 to the batch's longest) with ground-truth durations of
    1-11 frames (mean 6: ~780 frames for ~130 phonemes, the long end of
    LJSpeech's clips, which reach ~10 s or ~870 frames at 22,050 Hz and a
    hop of 256), lengths and durations drawn once from a generator of seed 0 so the
    expanded length is fixed for the batch (the mel lengths also go in the
    batch as Python ints, as the reference's collate hands them over);
    z-scored phoneme-level pitch and energy targets (standard normal),
    80-bin mel targets over each utterance's frames, zero-padded to the
    longest; the padding masks (True at the padding) for the model and
    their float complements for the loss."""
    g = torch.Generator().manual_seed(0)
    src_lens = torch.randint(120, 141, (batch,), generator=g)                     # b
    n = int(src_lens.max())
    src_keep = torch.arange(n).unsqueeze(0) < src_lens.unsqueeze(1)               # b, n
    durations = torch.randint(1, 12, (batch, n), generator=g) * src_keep          # b, n frames, 0 at the padding
    mel_lens = durations.sum(1)                                                    # b
    t = int(mel_lens.max())
    mel_keep = torch.arange(t).unsqueeze(0) < mel_lens.unsqueeze(1)               # b, T
    mel_lens = mel_lens.tolist()
    src_keep, mel_keep, durations = src_keep.to(device), mel_keep.to(device), durations.to(device)

    def make():
        text = torch.randint(1, 360, (batch, n), device=device) * src_keep
        pitch = torch.randn(batch, n, device=device) * src_keep
        energy = torch.randn(batch, n, device=device) * src_keep
        mel = torch.randn(batch, t, 80, device=device) * mel_keep.unsqueeze(-1)
        log_d = torch.log(durations.float() + 1) * src_keep
        return ((text, ~src_keep, durations, pitch, energy, ~mel_keep, mel_lens),
                (mel, log_d, pitch, energy, src_keep.float(), mel_keep.float()))
    return FastSpeech2(), make, _fastspeech2_loss, "adam"


MODELS = {
    "mobilenetv2": (mobilenetv2, "MobileNetV2 ImageNet (depthwise convolutions)"),
    "efficientnet": (efficientnet, "EfficientNet-B0 ImageNet (depthwise, SiLU, squeeze-excite)"),
    "vit": (vit, "ViT-S/16 width, 6 layers (nn.MultiheadAttention)"),
    "segnet": (segnet, "dilated 2-D segmentation net with group norm, 256x256"),
    "unet3d": (unet3d, "3-D U-Net on 64^3 volumes (Conv3d, BatchNorm3d)"),
    "gptmini": (gptmini, "decoder LM d512 x 8 layers, seq 512, causal SDPA"),
    "bert": (bert, "BERT-base-width encoder, 4 layers, seq 128"),
    "gru": (gru, "2-layer GRU language model, hidden 512, seq 128"),
    "bilstm": (bilstm, "bidirectional LSTM tagger, hidden 256, seq 64"),
    "dlrm": (dlrm, "DLRM-shaped recommender, 8 embedding bags of 200k x 64"),
    "convnext": (convnext, "ConvNeXt-T ImageNet (depthwise 7x7, channel LayerNorm, GELU); second round"),
    "convae": (convae, "image autoencoder, ConvTranspose2d decoder, 128x128; second round"),
    "tcn": (tcn, "dilated 1-D temporal conv net, 8 x 4096 signals; second round"),
    "lstmlm": (lstmlm, "2-layer LSTM language model, hidden 1024, seq 64; second round"),
    "seq2seq": (seq2seq, "encoder-decoder transformer, 3+3 layers, d512, cross attention; second round"),
    "densenet": (densenet, "DenseNet-121 ImageNet (concatenations, BatchNorm, 1x1 and 3x3); third round"),
    "llama": (llama, "LLaMA-style decoder d512 x 6, RMSNorm, rotary, SwiGLU, seq 256; third round"),
    "attnlstm": (attnlstm, "GRU encoder, LSTMCell decoder with additive attention, step by step; third round"),
    "twotower": (twotower, "two-tower retrieval, EmbeddingBag (mean), in-batch softmax; third round"),
    "cosmoflow": (cosmoflow, "CosmoFlow-shaped 3-D CNN on 4 x 64^3 volumes; third round"),
    "shufflenet": (shufflenet, "ShuffleNetV2 x1.0 ImageNet (channel shuffle, split, depthwise); fourth round"),
    "gcn": (gcn, "GraphSAGE, 3 layers, mean aggregation by index_add_ over 16 in-edges per node; fourth round"),
    "mixer": (mixer, "MLP-Mixer 224x224, patch 16, width 512, 8 blocks; fourth round"),
    "deepspeech": (deepspeech, "DeepSpeech-shaped: 2 Conv2d on spectrograms, 3-layer BiGRU 512, CTC; fourth round"),
    "regnet": (regnet, "RegNetX-400MF ImageNet (grouped convolutions); fourth round"),
    "gin": (gin, "GIN, 4 layers of 300, sum aggregation by gather and scatter_add_ over 6 in-edges; fifth round"),
    "resnext": (resnext, "ResNeXt-50 32x4d ImageNet (grouped convolutions); fifth round"),
    "swin": (swin, "Swin-T ImageNet (shifted-window attention); fifth round"),
    "pointnet": (pointnet, "PointNet classifier, 1,024 points (1x1 Conv1d, max over points, bmm); fifth round"),
    "wavenet": (wavenet, "WaveNet-shaped, 20 gated dilated causal Conv1d, 8,000 samples; fifth round"),
    "dcn": (dcn, "DCN-v2 recommender, 26 embeddings, 3 cross layers, BatchNorm1d MLP; sixth round"),
    "maxvit": (maxvit, "MaxViT-T ImageNet (MBConv, block and grid attention); sixth round"),
    "nerf": (nerf, "NeRF-style MLP, positional encoding, 8 x 256 with a skip; sixth round"),
    "fno": (fno, "2-D Fourier neural operator, 128x128, 4 layers of 32, 16 modes; sixth round"),
    "conformer": (conformer, "Conformer encoder, 6 blocks of 256, depthwise Conv1d, BatchNorm1d; sixth round"),
    "moe": (moe, "decoder LM d384 x 6, MoE feed-forwards of 8 experts, top-2, seq 256; seventh round"),
    "unet2d": (unet2d, "diffusion U-Net 64x64, base 64, GroupNorm, SiLU, attention at 16x16 and 8x8; seventh round"),
    "t5small": (t5small, "T5-small-shaped encoder-decoder 6+6, relative position bias, gated GELU; seventh round"),
    "ecgresnet": (ecgresnet, "1-D ResNet-18-shaped ECG classifier, 12 x 5000, 27 labels (BCE); seventh round"),
    "gat": (gat, "GAT, 3 layers, 8 heads of 64, edge softmax by scatter_reduce_ and index_add_; seventh round"),
    "perceiver": (perceiver, "Perceiver, 2,048 inputs of 256, 256 latents of 512, cross-attention, 6 blocks; eighth round"),
    "rnnt": (rnnt, "RNN-T-shaped: LSTM encoder and prediction net of 320, 200 x 41 x 129 joint; eighth round"),
    "effnetv2": (effnetv2, "EfficientNetV2-S ImageNet 224 (fused-MBConv, MBConv, squeeze-excite); eighth round"),
    "r3d": (r3d, "R3D-18 video, 16 x 112x112 clips (Conv3d, BatchNorm3d), 400 classes; eighth round"),
    "ncf": (ncf, "NeuMF, 138k users x 27k items, GMF and MLP branches, BCE; eighth round"),
    "vqvae": (vqvae, "VQ-VAE 64x64, conv encoder and decoder, 512 x 64 codebook by matmul distances and argmin; ninth round"),
    "mamba": (mamba, "Mamba-style selective SSM LM d256 x 4, causal depthwise Conv1d, Python-loop scan over 128 steps; ninth round"),
    "whisper": (whisper, "Whisper-tiny-shaped encoder-decoder 4+4, d384, 80 x 3000 log-mel to 1,500 frames, 64 tokens; ninth round"),
    "yolo": (yolo, "YOLOv5s-shaped detector 320x320 (C3, SPPF, FPN/PAN, 3 heads), stand-in loss; ninth round"),
    "fttransformer": (fttransformer, "FT-Transformer, 96 numeric + 8 categorical tokens of 192, 3 layers, ReGLU, BCE; ninth round"),
    "sasrec": (sasrec, "SASRec recommender, 50k x 128 item table, 2 causal blocks over 200 steps, BCE on a sampled negative; tenth round"),
    "deeplab": (deeplab, "DeepLabV3-shaped 256x256, dilated ResNet-18-like backbone at stride 8, ASPP 12/24/36, 21 classes; tenth round"),
    "convlstm": (convlstm, "ConvLSTM nowcasting, 10 frames of 64x64, 2 cells of 64, 3x3, Python loop over steps, MSE; tenth round"),
    "schnet": (schnet, "SchNet-shaped, 32-atom molecules, all-pairs edges, 50 Gaussians, 3 interactions of 128, index_add_; tenth round"),
    "dit": (dit, "DiT-S/2-shaped diffusion transformer, 4 x 32x32 latents, 256 tokens of 384 x 12, adaLN-Zero; tenth round"),
    "wav2vec2": (wav2vec2, "wav2vec 2.0-base-shaped, 16,000-sample waveforms, 7 strided Conv1d to 49 frames, conv position embedding, 6 post-LN layers of 768, frame CE; eleventh round"),
    "dgcnn": (dgcnn, "DGCNN, 1,024 points, 4 EdgeConv (k = 20 by matmul distances and topk, gather, 1x1 Conv2d, max), 40 classes; eleventh round"),
    "deepfm": (deepfm, "DeepFM, 26 fields in one 2.6M x 16 table with offsets, FM interaction, MLP 400 x 3, BCE; eleventh round"),
    "timesformer": (timesformer, "TimeSformer-shaped video, 8 x 224x224 frames, 196 patches of 384, 6 divided space-time blocks, 400 classes; eleventh round"),
    "odernn": (odernn, "ODE-RNN, 50 irregular observations, RK4 (4 steps) of an MLP 256 between GRUCell updates, Python loop; eleventh round"),
    "rwkv": (rwkv, "RWKV-4-shaped LM d512 x 4, token shift, WKV recurrence in a Python loop over 64 steps, squared-ReLU channel mix; twelfth round"),
    "hyena": (hyena, "Hyena-shaped LM d256 x 4, seq 1,024, sine-MLP implicit filters, long convolutions by rfft/irfft, gating; twelfth round"),
    "vnet": (vnet, "V-Net on 64^3 volumes, 5x5x5 Conv3d, strided Conv3d down, ConvTranspose3d up, InstanceNorm3d, PReLU; twelfth round"),
    "autoint": (autoint, "AutoInt, 39 fields in one 1M x 16 table with offsets, 3 self-attention layers of 2 x 32 (matmul, softmax), BCE; twelfth round"),
    "convmixer": (convmixer, "ConvMixer-512/8 ImageNet, patch 7, depthwise 9x9 and pointwise convolutions, BatchNorm2d; twelfth round"),
    "deeponet": (deeponet, "DeepONet, branch and trunk tanh MLPs 4 x 256, 128 basis, 200 query points per sample, MSE; twelfth round"),
    "mpnn": (mpnn, "MPNN, 32-atom molecules, all-pairs edges, edge network to 64 x 64 per edge by bmm, index_add_, GRUCell, 3 steps, Set2Set; thirteenth round"),
    "lstmcrf": (lstmcrf, "BiLSTM-CRF tagger, 20k x 100 embedding, BiLSTM 256, 20 tags, CRF forward algorithm in a Python loop over 64 steps; thirteenth round"),
    "pointnet2": (pointnet2, "PointNet++ SSG, 1,024 points, farthest point sampling in a Python loop, ball query by cdist and topk, 1x1 Conv2d, 40 classes; thirteenth round"),
    "tabnet": (tabnet, "TabNet, 54 features, 5 steps, ghost BatchNorm1d over virtual batches of 128, sparsemax by sort and cumsum, GLU blocks, 7 classes; thirteenth round"),
    "hifigan": (hifigan, "HiFi-GAN-V1-shaped generator, 80 x 32 mel to 8,192 samples, ConvTranspose1d x 256, MRF blocks of kernels 3, 7, 11, L1; thirteenth round"),
    "lru": (lru, "LRU LM d256 x 4, 512 real diagonal states, linear recurrence in a Python loop over 128 steps, GLU; fourteenth round"),
    "xdeepfm": (xdeepfm, "xDeepFM, 26 separate 100k x 16 tables, CIN 3 x 128 by einsum and 1x1 Conv1d, DNN 400-400, BCE; fourteenth round"),
    "poolformer": (poolformer, "PoolFormer-S12 224x224, avg-pool token mixer, GroupNorm, 1x1 conv MLPs, layer scale, 100 classes; fourteenth round"),
    "neox": (neox, "GPT-NeoX-shaped decoder d768 x 8, 12 heads, seq 256, partial rotary, matmul-softmax attention, parallel residual; fourteenth round"),
    "slowfast": (slowfast, "SlowFast-shaped video CNN, 4 + 16 x 112x112 frames, fast path 1/8 channels, time-strided lateral Conv3d, 50 classes; fourteenth round"),
    "gpt2moe": (gpt2moe, "GPT-2-shaped MoE decoder d512 x 6, 8 heads, seq 256, 16k vocab, top-2 of 8 experts sorted by argsort, index_select and index_add_, matmul-softmax attention; fifteenth round"),
    "efficientdet": (efficientdet, "EfficientDet-D0-shaped 384x384, EfficientNet-B0 backbone (depthwise, squeeze-excite), 3 BiFPN layers of 64 over P3-P7, separable heads, focal loss; fifteenth round"),
    "transformerxl": (transformerxl, "Transformer-XL-shaped LM d512 x 6, 2 segments of 128 per step, detached memory of 128, relative positions by rel-shift, 16k vocab; fifteenth round"),
    "gnnsage": (gnnsage, "GraphSAGE on sampled 2-hop neighbourhoods (20 x 20 by randint and index_select) of a 50k-node CSR graph, 2 layers of 256, mean by index_add_, 47 classes; fifteenth round"),
    "unetr": (unetr, "UNETR-shaped 96^3 segmenter, ViT of 216 patches of 384 x 8 (matmul attention), ConvTranspose3d and 3x3x3 Conv3d InstanceNorm3d decoder, 4 classes; fifteenth round"),
    "uno": (uno, "CANDLE Uno-shaped drug response, towers 3 x 1,000 over 942 genes, 3,820 descriptors and 2,048 fingerprint bits, 5 residual dense 1,000, MSE; sixteenth round"),
    "din": (din, "Deep Interest Network, 1M x 64 item and 10k x 64 category tables (dense), attention MLP 80-40 with Dice over 50 masked behaviours, MLP 200-80-2 PReLU, Adam; sixteenth round"),
    "qrnn": (qrnn, "QRNN LM, 20k x 512 tied embedding, 3 layers of 512, causal Conv1d gates, fo-pooling in a Python loop over 128 steps, Adam; sixteenth round"),
    "resunet3d": (resunet3d, "3-D residual U-Net on 128^3 volumes, 16-256 channels, GroupNorm, strided Conv3d down, trilinear up, 3 classes, Dice + CE; sixteenth round"),
    "inception": (inception, "Inception-v3 299x299 (1x7/7x1 and 1x3/3x1 factorised convolutions, BatchNorm), auxiliary head at 0.4, label smoothing 0.1; sixteenth round"),
    "cyclegan": (cyclegan, "CycleGAN 256x256, two ResNet generators (reflection pad, 7x7, stride-2 down, 9 blocks of 256, ConvTranspose2d up, InstanceNorm2d), two 70x70 PatchGANs, LSGAN + 10 x L1 cycle, Adam; seventeenth round"),
    "stylegan2": (stylegan2, "StyleGAN2-shaped 128x128 generator, mapping 8 x 512, modulated 3x3 convolutions by grouped conv (groups = batch), noise, bilinear up, skip toRGB, conv discriminator, non-saturating loss, Adam; seventeenth round"),
    "tft": (tft, "Temporal Fusion Transformer, 168 + 24 steps, 20 inputs embedded to 160, per-input GRN variable selection, LSTM encoder and decoder 160, interpretable 4-head causal attention (matmul, softmax), 3 quantiles, Adam; seventeenth round"),
    "pixelcnn": (pixelcnn, "Gated PixelCNN 32x32, masked 7x7 first layer, 15 gated layers of 128 (vertical and horizontal stacks, cropped convolutions, tanh x sigmoid), 256-way softmax per channel, Adam; seventeenth round"),
    "nbeats": (nbeats, "N-BEATS generic, 30 blocks of 4 Linear 512, lookback 336, horizon 48, backcast residuals, sMAPE, Adam; seventeenth round"),
    "dien": (dien, "DIEN, 500k x 32 item and 5k x 32 category tables (dense), GRU 64 interest extractor over 40 behaviours, attention MLP 80-40 with masked softmax, AUGRU in a Python loop over 40 steps, MLP 200-80-2 PReLU, Adam; eighteenth round"),
    "albert": (albert, "ALBERT-base-shaped MLM, 30k x 128 factorised embedding projected to 768, one post-LN layer (12 heads, 3,072, GELU) shared and applied 6 times, seq 128, tied head on 15% gathered positions, AdamW; eighteenth round"),
    "meshgraphnet": (meshgraphnet, "MeshGraphNets-shaped cloth simulator, 2,000-node triangle meshes (11,642 directed edges), encoders to 128, 8 processor steps of edge and node MLPs with LayerNorm, index_add_ aggregation, residuals, MSE, Adam; eighteenth round"),
    "mobilevit": (mobilevit, "MobileViT-XS 256x256, MobileNetV2 inverted residuals (depthwise 3x3, BatchNorm, SiLU), MobileViT blocks (2x2 unfold by reshape and permute, pre-LN matmul-softmax attention, fold, fuse), label smoothing 0.1, SGD momentum; eighteenth round"),
    "wgangp": (wgangp, "WGAN-GP DCGAN-shaped 64x64, ConvTranspose2d generator with BatchNorm2d from a 128-d latent, norm-free conv critic, gradient penalty by autograd.grad(create_graph=True) (double backward), critic and generator in one backward, Adam; eighteenth round"),
    "detr": (detr, "DETR-shaped detector 512x512, ResNet-18-shaped backbone (BatchNorm) to 16x16, 1x1 projection to 256, sine positional encoding, post-LN transformer 3 + 3 layers (nn.MultiheadAttention, 8 heads, FFN 1,024) over 100 queries, 92 classes, box MLP with sigmoid, CE + L1 on a fixed assignment, AdamW; nineteenth round"),
    "tacotron2": (tacotron2, "Tacotron-2-shaped text-to-mel, 148 x 512 embedding, 3 Conv1d 512 with BatchNorm1d, BiLSTM 256, decoder in a Python loop over 120 frames (prenet, two LSTMCell 1,024, location-sensitive attention with Conv1d over 100 steps), Conv1d postnet of 5, MSE + BCE, Adam; nineteenth round"),
    "bst": (bst, "Behavior Sequence Transformer, 1M x 32 item and 10k x 32 category tables (dense), 20 behaviours + target of 64, one post-LN block of 8 heads (matmul, softmax), FFN 128 LeakyReLU, 8 features from one 100k x 16 table with offsets, MLP 1,024-512-256, BCE, Adam; nineteenth round"),
    "afno": (afno, "AFNO/FourCastNet-shaped weather model, 20 x 128x256 grid, 8x8 patches to 384, 8 blocks of rfft2/irfft2 in fp32 with a block-diagonal complex MLP as real einsums over 8 blocks, soft-shrink, GELU MLP 1,536, MSE, AdamW; nineteenth round"),
    "capsnet": (capsnet, "CapsNet 28x28, 9x9 Conv2d 256, primary capsules 1,152 x 8, W [1152, 10, 16, 8] by broadcast matmul, 3 routing iterations in a Python loop (softmax, weighted sum, squash, agreement), margin loss + 0.0005 x reconstruction by an MLP 512-1,024-784, Adam; nineteenth round"),
    "evoformer": (evoformer, "AlphaFold-2 Evoformer-shaped, MSA 64 x 128 residues x 64 and pair 128 x 128 x 64, 4 blocks (gated row attention with pair bias and column attention of 8 heads, outer product mean by einsum, triangle multiplicative updates outgoing and incoming by einsum, triangle attention around the start and end nodes with pair bias, 4 heads; matmul-softmax, LayerNorm, shared-mask dropout), distogram of 64 bins, CE, Adam; twentieth round"),
    "deepcam": (deepcam, "DeepCAM-shaped DeepLabv3+ climate segmenter, 16 x 384x576, bottleneck ResNet of 2 blocks per stage with BatchNorm at output stride 16 (last stage dilated), ASPP 6/12/18 + image pooling, decoder with a 48-channel low-level skip at 96x144, bilinear up, 3 classes, weighted CE, AdamW; twentieth round"),
    "lstnet": (lstnet, "LSTNet, 321 series x 168 steps, Conv2d of 100 filters 6 x 321, GRU 100 over 163 steps, skip GRU 5 over 6 steps of b x 24 sequences (view, permute), highway Linear over the last 24 steps, sigmoid, L1, Adam; twentieth round"),
    "mmoe": (mmoe, "MMoE two-task ranker, 26 separate 100k x 16 tables (dense) + 13 dense features, 8 expert MLPs 429-256-128 in a Python loop, 2 softmax gates applied by bmm, towers 64-1, two BCE terms, Adam; twentieth round"),
    "convtasnet": (convtasnet, "Conv-TasNet, 32,000-sample 8 kHz mixtures, Conv1d encoder of 512 x 16 at stride 8 (3,999 frames), 3 x 8 blocks (1x1 Conv1d 128-512, PReLU, gLN written out, depthwise Conv1d k3 at dilations 1-128, residual and skip 1x1), sigmoid masks for 2 speakers, ConvTranspose1d decoder, negative SI-SNR over both permutations, Adam; twentieth round"),
    "segformer": (segformer, "SegFormer-B0-shaped 512x512, MiT encoder of 4 stages (overlapping patch embeddings by Conv2d 7x7 stride 4 and 3x3 stride 2, widths 32-64-160-256, 2 blocks each, 1-2-5-8 heads), efficient attention with keys and values reduced by strided Conv2d 8-4-2-1 and LayerNorm (matmul, softmax), Mix-FFN with 3x3 depthwise Conv2d and GELU, all-MLP decoder (Linear to 256, bilinear up to 128x128, concat 1,024, 1x1 Conv-BN-ReLU), 150 classes, CE at 1/4, AdamW; twenty-first round"),
    "reformer": (reformer, "Reformer-shaped LM d512 x 6, 8 heads, seq 4,096, axial position embeddings 64 x 64, LSH attention with shared QK (random rotations, 64 buckets, 2 hash rounds, argsort, gather, chunks of 64 attending to themselves and the previous chunk, causal and self masks, unsort by the argsort of the sort, rounds combined by logsumexp), ReLU feed-forward 2,048 in a Python loop over 4 chunks of 1,024, plain pre-LN residuals, 16k vocab, Adam; twenty-first round"),
    "nfnet": (nfnet, "NFNet-F0-shaped normalizer-free ResNet 192x192, depths 1-2-3-1 of widths 256-512-1,536-1,536, weight-standardised Conv2d recomputed every call, scaled GELU, grouped 3x3 (groups of 128), squeeze-excite, skip-init gains, AGC (lambda 0.01) by a gradient hook per parameter, final 1x1 to 3,072, 1,000 classes, label smoothing 0.1, SGD momentum; twenty-first round"),
    "egnn": (egnn, "EGNN, 29-atom molecules, all-pairs edges (812 per molecule), 7 E(n)-equivariant layers of 128 (edge MLP over [h_i, h_j, |x_i - x_j|^2] with a sigmoid gate, coordinate updates by the mean of (x_i - x_j) phi_x(m_ij), node MLP with residual; index_add_), sum pooling by index_add_, MLP head to 1 target, L1, Adam; twenty-first round"),
    "fibinet": (fibinet, "FiBiNET, 39 separate 100k x 16 tables (dense), SENET over the fields (mean squeeze, excitation 39-13-39, reweight), field-all bilinear interaction (one 16 x 16 W, 741 pairs by index_select) on the raw and the reweighted embeddings, DNN 400-400-400 on 23,712, BCE, Adam; twenty-first round"),
    "hrnet": (hrnet, "HRNet-W18-shaped pose estimator 256x192, stem of two stride-2 3x3 Conv-BN-ReLU, 4 bottleneck blocks of 256, then 2, 3 and 4 parallel branches of 18-36-72-144 at 1/4-1/32 (one module each, 2 basic blocks per branch), fusion by strided 3x3 Conv-BN down and 1x1 Conv-BN + nearest upsampling up, 1x1 head to 17 heatmaps at 64x48, MSE, Adam; twenty-second round"),
    "gnmt": (gnmt, "GNMT-shaped translation, 32k x 512 embedding shared by source and target, 4 encoder nn.LSTM of 512 (the first bidirectional, residual from the third), 4 decoder nn.LSTM of 512 (teacher forcing, residual from the third) with normalised additive attention from the first layer's outputs for all 50 x 50 step pairs at once (b x 50 x 50 x 512 tanh, softmax, bmm), seq 50 + 50, 32k classifier, label smoothing 0.1, Adam; twenty-second round"),
    "pna": (pna, "PNA on ZINC-sized molecules, 23 atoms and 50 directed edges each (random bonds), 4 layers of 80, 5 towers in a Python loop, mean/std by index_add_ and min/max by scatter_reduce, scalers identity/amplification/attenuation by log degree, BatchNorm1d, residual, mean pooling by index_add_, MLP 40-20-1, L1, Adam; twenty-second round"),
    "gpt2medium": (gpt2medium, "GPT-2-medium-width decoder d1024 x 8 (not 24), 16 heads, MLP 4,096 GELU, pre-LN, seq 512, causal SDPA (matmul-softmax where PyTorch lacks it), 32k vocab, tied head, AdamW; twenty-second round"),
    "wide_deep": (wide_deep, "Wide & Deep, wide part a 1M x 1 EmbeddingBag (sum) over 20 hashed cross features, deep part 26 fields in one 1.3M x 32 table with offsets + 13 dense features, MLP 1,024-512-256, summed logits, BCE, Adam; twenty-second round"),
    "quartznet": (quartznet, "QuartzNet-5x5-shaped CTC speech recogniser, 64 mel features x 400 frames, separable prologue (depthwise k 33, stride 2, pointwise to 256), 5 blocks of 5 time-channel separable Conv1d (depthwise k 33, 39, 51, 63, 75, pointwise 1x1, BatchNorm1d, ReLU) of 256-256-512-512-512 with 1x1 Conv-BN residuals, epilogue separable k 87 dilation 2, 1x1 to 1,024 and to 29, log_softmax, CTC against 60 characters over 200 frames, Adam; twenty-third round"),
    "graphormer": (graphormer, "Graphormer-shaped molecule regressor, 30 atoms of 9 features summed from one 512 x 384 table + degree embedding, graph token, 8 pre-LN layers of 384 (16 heads, FFN 1,536 GELU), matmul-softmax attention plus a per-head bias from nn.Embedding(20, 16) of a 30 x 30 shortest-path-distance matrix (permute, pad, learned virtual distance), head from the graph token, L1, AdamW; twenty-third round"),
    "instantngp": (instantngp, "Instant-NGP-shaped radiance field, batch in samples (32 per ray), 16-level hash encoding (one 16 x 2^19 x 2 table, resolutions 16 x 1.5^l, int64 floors, XOR of coordinates times primes mod 2^19 or direct indices on the coarse levels by where, 8 corners by index_select, trilinear weights), density MLP 32-64-16, degree-4 spherical harmonics, colour MLP 32-64-64-3, volume rendering by cumsum and exp, MSE, Adam; twenty-third round"),
    "raft": (raft, "RAFT-shaped optical flow 256x320, small encoders (bottleneck blocks, InstanceNorm2d for features) to 1/8, all-pairs 1,280 x 1,280 correlation by bmm, 2-level avg_pool2d pyramid, 6 iterations in a Python loop (9x9 lookups by grid_sample, conv motion encoder, separable 1x5/5x1 ConvGRU of 96, flow head, bilinear x8 upsampling), sequence L1 weighted 0.8^(N - i), AdamW; twenty-third round"),
    "simclr": (simclr, "SimCLR, ResNet-18-shaped encoder (BatchNorm2d) on both 96x96 views as one batch of 2b, projection 512-2,048-128 with BatchNorm1d, NT-Xent at temperature 0.5 over the 2b x 2b cosine similarities (normalize, matmul, diagonal masked_fill -inf, cross-entropy), SGD momentum; twenty-third round"),
    "mae": (mae, "MAE pretraining 224x224, patch 16 by a strided Conv2d, learned positions, 75% of the 196 patches masked per sample (rand, argsort, gather), encoder 8 pre-LN blocks of 512 over 49 + 1 tokens (8 heads, MLP 2,048 GELU, SDPA), decoder 4 blocks of 256 with mask tokens unshuffled by gather with the inverse argsort, Linear to 16 x 16 x 3 pixels, per-patch normalised MSE on the masked patches, AdamW; twenty-fourth round"),
    "glow": (glow, "Glow-shaped flow on 3 x 32x32, squeeze to 12 x 16x16, 3 levels of 8 steps (ActNorm, invertible 1x1 conv with log|det| by slogdet of the fp32 weight x H W, affine coupling Conv2d 3x3-256, 1x1 256, zero-init 3x3, sigmoid(s + 2)), half the channels split to a standard-normal prior after levels 1 and 2, NLL in bits per dimension, Adam; twenty-fourth round"),
    "performer": (performer, "Performer-shaped LM d512 x 6, 8 heads, seq 2,048, 16k vocab, causal FAVOR+ written out (256 fixed Gaussian features per head, exp(wx - |x|^2 / 2) with stabilisers, einsum of key-feature x value outer products and cumsum over b x 8 x 2,048 x 256 x 64), pre-LN, MLP 2,048 GELU, tied head, AdamW; twenty-fourth round"),
    "pointtransformer": (pointtransformer, "Point Transformer-shaped classifier, 1,024 points, 4 stages of 32-64-128-256 (1, 2, 3, 5 blocks) at 1,024-256-64-16 points, k = 16 by cdist and topk, gather, vector attention (pos MLP on xyz differences, attention MLP on q_i - k_j + pos, softmax over neighbours per channel), strided downsampling by 4 with max-pooled neighbour features, mean pool, MLP to 40 classes, Adam; twenty-fourth round"),
    "bidaf": (bidaf, "BiDAF, 256 context and 32 query words, 50k x 300 word embedding + character CNN (100 x 16, Conv1d 100 x 5, max over 16 chars), 2-layer highway, BiLSTM 100 contextual layer, trilinear 256 x 32 similarity as three terms (Linear, Linear, einsum), context-to-query and query-to-context attention, 2-layer BiLSTM 100 modelling layer, end BiLSTM 100, two CE over 256 positions, Adam; twenty-fourth round"),
    "pspnet": (pspnet, "PSPNet-shaped segmenter 384x384, bottleneck ResNet of 2 blocks per stage at inner widths 32-64-128-256 (half ResNet-50's) with BatchNorm, dilated 2 and 4 to output stride 8 (48x48), pyramid pooling (adaptive avg pool to 1, 2, 3, 6 bins, 1x1 Conv-BN-ReLU 256, bilinear up, concat 2,048), 3x3 Conv-BN-ReLU 256, 21 classes, logits bilinear x8, CE, SGD momentum; twenty-fifth round"),
    "edsr": (edsr, "EDSR-shaped x4 super-resolution, 48x48 patches, 16 residual blocks of 64 without BatchNorm (3x3 conv, ReLU, 3x3 conv, scaled 0.1), global skip, two 3x3 conv 256 + PixelShuffle(2) stages, L1 against 192x192, Adam; twenty-fifth round"),
    "biggan": (biggan, "BigGAN-shaped 64x64 conditional GAN, ch 64, 100 classes, latent 128, spectral norm (power iteration per call) on every conv, linear and embedding, conditional BatchNorm from class embedding + latent, nearest up, self-attention over 1,024 positions (bmm, softmax) in G and D, avg-pool D with projection, hinge losses of G (frozen D) and D in one backward, Adam; twenty-fifth round"),
    "informer": (informer, "Informer-shaped forecaster, 7 variables, encoder 336 steps and decoder 48 + 96, d256, 4 heads, ProbSparse attention written out (30 randint-sampled keys per query, max - mean measure, topk 30 queries, gather, full attention, scatter into mean or cumulative mean of V), distilling Conv1d + BatchNorm1d + ELU + MaxPool1d to 168, 2 encoder + 1 decoder layers, MSE on 96 steps, Adam; twenty-fifth round"),
    "gptckpt": (gptckpt, "GPT-2-small-width decoder d768 x 6, 12 heads, MLP 3,072 GELU, pre-LN, seq 512, 32k vocab, tied head, causal SDPA, every block under non-reentrant activation checkpointing (the backward recomputes each block's forward), AdamW; twenty-fifth round"),
    "convnext_nn": (convnext_nn, "ConvNeXt-T written out in torch.nn 224x224 (torchvision's is convnext), 4x4 stride-4 stem + LayerNorm, depths 3-3-9-3 of 96-192-384-768, blocks of depthwise 7x7 Conv2d, permute to channels-last, nn.LayerNorm, Linear 4x, GELU, Linear, layer scale, permute back, residual, LayerNorm + 2x2 stride-2 Conv2d downsampling, 1,000 classes, AdamW; twenty-sixth round"),
    "swin_nn": (swin_nn, "Swin-T written out in torch.nn 224x224 (torchvision's is swin), patch 4 by a strided Conv2d to 96, depths 2-2-6-2 of 96-192-384-768 with 3-6-12-24 heads, 7x7 windows by view and permute, shifted windows by torch.roll with a -100 mask, relative position bias gathered from a 169 x heads table by a fixed index, matmul-softmax attention, patch merging (2x2 slices concatenated, LayerNorm, Linear 4C to 2C), MLP 4x GELU, 1,000 classes, AdamW; twenty-sixth round"),
    "gru4rec": (gru4rec, "GRU4Rec-shaped session recommender, 100k x 128 item table, 2-layer nn.GRU 256 over 20 clicks, Linear to 128, scores by one GEMM against the table rows of the batch's own b x 20 targets + 2,048 negatives drawn by torch.randint per step, CE over b x 20 + 2,048 columns, Adam; twenty-sixth round"),
    "resnet3d": (resnet3d, "MedicalNet-style 3-D ResNet-18 on 1 x 64^3 volumes, 7x7x7 stride-2 Conv3d stem, BatchNorm3d, MaxPool3d, 4 stages of 2 basic blocks 64-128-256-512 (3x3x3 Conv3d, stride 2 from stage 2, 1x1x1 Conv3d-BN shortcuts), global average pool, 2 classes, SGD momentum; twenty-sixth round"),
    "retnet": (retnet, "RetNet-shaped LM d512 x 6, 8 heads, seq 1,024, 16k vocab, tied head, parallel multi-scale retention written out (xPos-like rotation of q and k by sin/cos buffers, (QK^T * D) with a fixed 8 x 1,024 x 1,024 decay-mask buffer gamma^(n-m), row normalisation, V, fp32 GroupNorm over heads, swish gate), pre-LN, FFN 2,048 GELU, AdamW; twenty-sixth round"),
    "demucs": (demucs, "Demucs-shaped waveform source separator, 1 s mono at 44.1 kHz (44,100 samples), 4 sources, encoder of 5 Conv1d kernel 8 stride 4 + ReLU + 1x1 Conv1d to 2C + GLU at 48-96-192-384-768 (down to 41 steps), 2-layer bidirectional nn.LSTM 768 + Linear 1,536 to 768 over the bottleneck, mirrored decoder of skip add (centre-cropped) + 1x1 Conv1d + GLU + ConvTranspose1d kernel 8 stride 4 + ReLU to 43,348 samples, L1 against the centre-cropped sources, Adam; twenty-seventh round"),
    "longformer": (longformer, "Longformer-shaped masked LM d512 x 4, 8 heads, seq 4,096, 30k vocab, learned positions, sliding-window attention written out (window 256: blocks of 128 queries, k and v padded and unfold into overlapping 384-key windows, banded QK^T by einsum, fixed band mask, softmax, AV by einsum), post-LN, FFN 2,048 GELU, 614 masked positions (15%, fixed per batch) gathered, tied head, CE, AdamW; twenty-seventh round"),
    "x3d": (x3d, "X3D-S-shaped video classifier, 13 frames at 160x160, stem 1x3x3 stride-2 Conv3d + depthwise 5x1x1 Conv3d, 4 stages of 3-5-11-7 inverted bottlenecks at 24-48-96-192 (1x1x1 expand x2.25, depthwise 3x3x3 Conv3d, squeeze-excitation every other block, SiLU, 1x1x1 project), BatchNorm3d, 1x1x1 Conv3d to 432, global average pool, Linear 2,048, dropout, 400 classes, SGD momentum; twenty-seventh round"),
    "pinn": (pinn, "Physics-informed MLP for the 2-D heat equation, (x, y, t) -> 8 hidden Linear 256 with tanh -> u, batch = collocation points, u_x, u_y, u_t and then u_xx, u_yy by torch.autograd.grad with create_graph=True (the backward runs a double backward), PDE residual MSE + boundary MSE on a quarter as many points, Adam; twenty-seventh round"),
    "fnet": (fnet, "FNet-shaped masked LM d768 x 8, seq 512, 32k vocab, learned positions, token mixing by the real part of torch.fft.fft2 over (sequence, hidden) in fp32, residual + LayerNorm, FFN 3,072 GELU, residual + LayerNorm, 77 masked positions (15%) gathered, tied head, CE, AdamW; twenty-seventh round"),
    "resnest": (resnest, "ResNeSt-50-shaped classifier 224x224, deep stem of three 3x3 Conv-BN-ReLU (32-32-64), depths 3-4-6-3 of bottlenecks at inner widths 64-128-256-512 (outputs 256-2,048), split-attention 3x3 Conv2d of radix 2 written out (Conv2d in 2 groups, BatchNorm2d, split and sum, adaptive_avg_pool2d, 1x1 Conv2d-BN-ReLU and 1x1 Conv2d, softmax over the radix by view and transpose, weighted sum of the splits), 3x3 AvgPool2d strides inside the blocks, AvgPool2d + 1x1 Conv-BN shortcuts, 1,000 classes, label smoothing 0.1, SGD momentum; twenty-eighth round"),
    "deberta": (deberta, "DeBERTa-shaped masked LM d768 x 6, 12 heads, seq 512, 128,100 vocab, no absolute positions, disentangled attention written out (log-bucketed relative positions, 256 buckets; a 512 x 768 relative table LayerNorm-ed and projected by the shared q and k Linears; content q k^T + c2p q pk^T and p2c k pq^T gathered along the key axis by fixed 512 x 512 indices, p2c transposed, divided by sqrt(3 dh), softmax, matmul), post-LN, FFN 3,072 GELU, 77 masked positions (15%) gathered, tied head, CE, AdamW; twenty-eighth round"),
    "lstmp": (lstmp, "Big-LSTM-shaped LM (LSTM-2048-512), seq 128, 267,735-word vocab with Zipfian (log-uniform) tokens, 512-d embedding, 2-layer nn.LSTM of 2,048 cells with proj_size 512 (cuDNN LSTMP), dropout 0.1, adaptive softmax written out as nn.AdaptiveLogSoftmaxWithLoss's forward with cutoffs 20k-40k-200k and div 4 (head 512 x 20,003, tails 512-128-20k, 512-32-160k, 512-8-67,735, no biases; rows picked per cluster by mask and nonzero, index_select, fp32 log_softmax, gather, index_copy_ and index_fill_: target-dependent shapes, host syncs), mean NLL, Adam; twenty-eighth round"),
    "youtubednn": (youtubednn, "YouTube-DNN-shaped candidate generator, ragged watch histories (1-50 of 500k videos) through a 500k x 64 EmbeddingBag (sum) with offsets and normalised per_sample_weights, ragged search histories (1-50 of 100k tokens) through an EmbeddingBag (mean), 2,000 x 16 region embedding, 7 dense features, ReLU tower 1,024-512-256, sampled softmax over 500k x 256 output embeddings + biases (8,192 log-uniform candidates drawn per step by exp and floor, shared by the batch, logits by F.linear less log expected count, accidental hits masked to -inf), CE over 8,193 columns, Adam; twenty-eighth round"),
    "transolver": (transolver, "Transolver-shaped neural PDE solver on a 221 x 51 airfoil mesh (11,271 points), coordinates -> MLP 256-128 + placeholder, 8 pre-LN blocks of 128 with physics attention (two 3x3 Conv2d over the structured mesh, 8 heads, softmax of a Linear to 64 slices at a clamped learned temperature, slice tokens by einsum over the points and normalised, q/k/v Linears, matmul-softmax attention among the 64 slices, deslicing by einsum), MLP 256 GELU, LayerNorm, Linear to 1 field, relative L2 loss, AdamW; twenty-eighth round"),
    "ghostnet": (ghostnet, "GhostNet-1.0-shaped classifier 224x224, 3x3 stride-2 Conv-BN-ReLU stem to 16, 16 ghost bottlenecks (outputs 16-24-40-80-112-160 at 112 down to 7, inner widths 16 to 960) with ghost modules written out (1x1 Conv2d-BN-ReLU to half the channels, cheap depthwise 3x3 Conv2d-BN-ReLU of those, torch.cat and a channel slice), depthwise 3x3 or 5x5 stride-2 Conv2d-BN in the 4 strided bottlenecks, squeeze-excitation in 7 (mean, 1x1 Conv2d, ReLU, 1x1 Conv2d, hard-sigmoid gate), depthwise + 1x1 Conv-BN shortcuts where the shape changes, 1x1 Conv-BN-ReLU to 960, global mean, 1x1 Conv2d 960-1,280 + ReLU, dropout 0.2, 1,000 classes, SGD momentum; twenty-ninth round"),
    "bloom": (bloom, "BLOOM-560M-shaped decoder at half its depth, d1,024 x 12, 16 heads, MLP 4,096 GELU (tanh approximation), pre-LN, seq 512, 50,257 vocab, LayerNorm after the word embedding and no position embeddings, ALiBi attention written out (per-head slopes 2^(-i/2) times the key positions, repeated over the batch, as the torch.baddbmm bias of q k^T / 8; causal mask filled with the fp32 minimum, softmax in fp32, bmm with v), tied head, AdamW; twenty-ninth round"),
    "slstm": (slstm, "xLSTM-shaped LM of 2 sLSTM blocks of 512 (4 heads of 128), seq 128, 10k vocab, tied head, sLSTM cells written out in a Python loop over the 128 steps (per step one bmm of the state by block-diagonal 4 x 128 x 512 recurrent weights added to the precomputed input projections, exponential input and forget gates stabilised by m_t = max(f~ + m_{t-1}, i~), cell and normaliser states, h = sigmoid(o) c / n, states in fp32), i and f gates fed by a causal depthwise Conv1d k4 + SiLU, per-head GroupNorm, pre-LN residuals, gated MLP 2 x 704 GELU, Adam; twenty-ninth round"),
    "finalmlp": (finalmlp, "FinalMLP-shaped CTR model, 39 categorical fields in 39 nn.Embedding tables of 16 with vocabularies log-spaced from 10 to 1,000,000 rows (3.8M rows, dense gradients), 13 dense features each scaling a learned 16-vector, 52 x 16 flattened to 832, two streams each behind a feature gate (ReLU MLP 32-800-832 of two context fields' embeddings, 2 x sigmoid times the flattened embeddings), stream MLPs 400-400-400 and 800-800 (Linear-BN-ReLU-dropout 0.2), multi-head bilinear fusion (Linear(400, 1) + Linear(800, 1) + 50 heads of 8 x 16 split by view, x W y by two einsums), BCE, Adam; twenty-ninth round"),
    "mednext": (mednext, "MedNeXt-shaped 3-D segmenter on 1 x 128^3 CT patches, 14 classes, 1x1x1 Conv3d stem to 32, MedNeXt blocks written out (depthwise 5x5x5 Conv3d with groups = channels, GroupNorm of one channel per group in fp32, 1x1x1 Conv3d expansion x4, GELU, 1x1x1 Conv3d back, residual), 2 blocks per stage at 32-64-128-256 and 2 at the 512 bottleneck (8^3), down blocks by depthwise 5x5x5 stride-2 Conv3d with 1x1x1 stride-2 Conv3d residuals, up blocks by depthwise 5x5x5 stride-2 ConvTranspose3d with 1x1x1 stride-2 ConvTranspose3d residuals, F.pad to 2n and the skip added, 1x1x1 Conv3d to 14 classes, soft Dice + CE, AdamW; twenty-ninth round"),
    "mistral": (mistral, "Mistral-shaped decoder LM d512 x 6, seq 512, 32,000 vocab, 8 query heads and 2 key/value heads of 64 (grouped-query attention: q Linear 512-512, k and v Linears 512-128, k and v expanded to 8 heads by repeat_interleave), rotary embeddings (base 10,000, rotate-half), RMSNorm written out in fp32 (rsqrt of the mean square), sliding-window causal attention of window 128 (SDPA with a boolean band mask), SwiGLU MLP 1,536 (SiLU(gate) x up, down), no biases, untied head, CE, AdamW; thirtieth round"),
    "crnn": (crnn, "CRNN text recogniser on 1 x 32 x 256 grey text lines, VGG-style stack of 3x3 Conv-BN-ReLU (no bias) 64, 2x2 max pool, 128, 2x2 max pool, 256, 256, max pool kernel 2 stride (2, 1) padding (0, 1), 512, 512, the same pool, 2x2 Conv-BN-ReLU 512 (no padding) to a 1 x 65 sequence of 512 features, 2-layer bidirectional nn.LSTM 256 (batch first), Linear to 37 classes (36 symbols + blank), log_softmax in fp32, CTC (F.ctc_loss) against targets padded to 20 with lengths 5-20 drawn once from a seeded generator, every input length 65, Adam; thirtieth round"),
    "s4d": (s4d, "S4D-shaped diagonal state-space classifier on sequential CIFAR (1,024 steps of 3 channels), Linear encoder to 256, 4 prenorm residual layers (fp32 LayerNorm over the channels on b x 256 x 1,024, S4D kernel computed each step from learned log_dt, A = -exp(log_A_real) + i A_imag and C of 64 complex modes per channel by view_as_complex and torch.complex: zero-order-hold C (exp(dtA) - 1) / A, Vandermonde exp(dtA x arange(1,024)) over 256 x 64 x 1,024 and a complex einsum, 2 x real part; long convolution by torch.fft.rfft of input and kernel over 2,048, product, irfft, first 1,024 kept, in fp32; skip D, GELU, dropout 0.1, 1x1 Conv1d 256-512 + GLU, dropout, residual), mean over the sequence, Linear to 10 classes, CE, AdamW; thirtieth round"),
    "electra": (electra, "ELECTRA-small-shaped replaced-token-detection pretraining, seq 128, 30,522 vocab, shared 128-d word, position and token-type embeddings (LayerNorm, dropout 0.1) projected by a Linear to each encoder's width, generator 4 post-LN layers of 64 (4 heads of 16, FFN 256), discriminator 12 post-LN layers of 256 (4 heads, FFN 1,024), GELU, attention written out (matmul, fp32 softmax, dropout, matmul), 19 masked positions (15%, fixed per batch) gathered from the generator, Linear 64-128 + GELU + LayerNorm, tied output embedding + bias, MLM CE; replacements by torch.multinomial from the detached fp32 softmax over b x 19 rows of 30,522, scattered into the ids; discriminator head Linear 256-256 + GELU + Linear to 1, BCE over all 128 tokens against replaced labels; loss = MLM + 50 x BCE, AdamW; thirtieth round"),
    "cgcnn": (cgcnn, "CGCNN-shaped crystal graph regressor, batch = crystals of 24 atoms with 12 neighbours each (index tensors drawn once from a seeded generator, offset by 24 per crystal), 92 atom features -> Linear 64, distances expanded on 41 Gaussians (0-8 A by 0.2), 3 conv layers (neighbour features gathered by x[nbr], concat [self, neighbour, edge] 64 + 64 + 41, Linear 169-128, BatchNorm1d over n x 12 rows, chunk into sigmoid filter and softplus core, product summed over the 12 neighbours, BatchNorm1d, softplus of the residual), mean per crystal by index_add_, softplus, Linear 64-128, softplus, Linear to 1, MSE, Adam; thirtieth round"),
    "candletc1": (tc1, "CANDLE TC1 tumour classifier from RNA-seq, b x 1 x 60,483 gene expression values, Conv1d 1-128 kernel 20 (valid) + ReLU, MaxPool1d(1), Conv1d 128-128 kernel 10 + ReLU, MaxPool1d(10) (60,483 -> 60,464 -> 60,455 -> 6,045), flatten 773,760, Linear 200 + ReLU, dropout 0.1, Linear 20 + ReLU, dropout 0.1, Linear to 18 tumour types, CE, plain SGD; thirty-first round"),
    "combo": (combo, "CANDLE Combo drug-pair response, cell-line tower over 942 expressions and one drug tower over 3,820 descriptors applied to both drugs (shared weights, two gradient contributions), each 3 dense 1,000 (Linear, ReLU, dropout 0.1, residual where widths match), cell + drug 1 + drug 2 concatenated (3,000), 3 residual dense 1,000, Linear to 1, MSE, Adam; thirty-first round"),
    "st1": (st1, "CANDLE ST1-shaped SMILES regressor, 250 token ids over a 40,000 vocab (pre-padded with 0, lengths 20-250 drawn once from a seeded generator), token + position embeddings of 128, 2 post-LN encoder blocks (nn.MultiheadAttention batch first, 4 heads of 32, need_weights=False, dropout 0.1, residual, fp32 LayerNorm eps 1e-6, FFN 256 ReLU), mean over the 250 tokens, dropout, Linear 256 + ReLU, dropout, Linear to 1, MSE, AdamW; thirty-first round"),
    "levit": (levit, "LeViT-128S-shaped hybrid ViT at 224x224, stem of four 3x3 stride-2 Conv2d (no bias) + BatchNorm2d 3-16-32-64-128 with Hardswish between (196 tokens of 14x14), stages 128, 256, 384 of depth 2, 3, 4 and 4, 6, 8 heads (key dim 16, value dim 32), Linear_BN projections (Linear without bias + BatchNorm1d over the b*n rows), per-head attention bias gathered each step from a heads x offsets parameter by a fixed n x n index of absolute (dy, dx) offsets, softmax, Hardswish before the output Linear_BN, residual MLPs ratio 2 (Linear_BN, Hardswish, Linear_BN with BN weight 0), subsampling attention between stages (8 and 16 heads, value dim 64, queries from a stride-2 subsample: 14x14 -> 7x7 -> 4x4, no residual), mean over tokens, BatchNorm1d + Linear to 1,000, CE, AdamW; thirty-first round"),
    "dcrnn": (dcrnn, "DCRNN traffic forecaster on METR-LA shapes, 207 sensors, 12 input steps of 2 features (speed, time of day) and 12 output steps of 1, seeded random graph of 1,722 non-zeros (207 self-loops + 1,515 directed edges), forward and backward random-walk supports as torch sparse COO tensors, DCGRU cells of 64 units whose gates and candidate are diffusion convolutions (per support K = 2 steps by torch.sparse.mm on the nodes x (batch*features) layout in fp32 with autocast off, Chebyshev-style x2 = 2 S x1 - x0, 5 signals stacked, Linear to 128 + sigmoid for reset and update, Linear to 64 + tanh for the candidate), 2-layer encoder and 2-layer decoder unrolled in Python over 12 steps each, decoder fed its own previous prediction (no teacher forcing), Linear 64-1, MAE, Adam; thirty-first round"),
    "p1b1": (p1b1, "CANDLE P1B1 gene-expression autoencoder, b x 60,483 expression values in [0, 1), encoder Linear 2,000 + ReLU, Linear 600 + ReLU, latent Linear 100 + ReLU, decoder Linear 600 + ReLU, Linear 2,000 + ReLU, Linear 60,483 + sigmoid (two 121M-weight GEMMs at the ends, 244M parameters), no dropout or BatchNorm, Glorot-uniform weights, MSE against the input, Adam; thirty-second round"),
    "candleattn": (candleattn, "CANDLE Attn drug-response classifier, 6,212 input features, Linear 1,000 + ReLU + BatchNorm1d trunk, two parallel Linear 1,000 from it (ReLU + BatchNorm1d values; softmax over the 1,000 outputs as attention) multiplied elementwise, then Linear 500, 250, 125, 60, 30 each + ReLU + BatchNorm1d (eps 1e-3, momentum 0.01) + dropout 0.2 in Keras order, Linear to 2 classes, Glorot-uniform weights, CE, SGD momentum; thirty-second round"),
    "mobilenetv3": (mobilenetv3, "MobileNetV3-Large written out 224x224 (not torchvision's), 3x3 stride-2 Conv-BN-Hardswish stem to 16, the paper's 15 inverted residuals (1x1 expansion Conv-BN where wider, depthwise 3x3 or 5x5 Conv-BN of stride 1 or 2, squeeze-excitation in 8 by adaptive_avg_pool2d + 1x1 Conv2d to exp/4 rounded to 8 + ReLU + 1x1 Conv2d + hardsigmoid gate, 1x1 projection Conv-BN, ReLU in the first 6 blocks and Hardswish after, residual where stride 1 and widths match; outputs 16-24-40-80-112-160 at 112 down to 7), 1x1 Conv-BN-Hardswish to 960, adaptive avg pool, Linear 1,280 + Hardswish, dropout 0.2, Linear 1,000, CE, SGD momentum; thirty-second round"),
    "convnextv2": (convnextv2, "ConvNeXt-V2-Nano-shaped classifier 224x224, 4x4 stride-4 Conv2d stem to 80 + channels-first LayerNorm written out (mean, (x - u)^2 mean, sqrt, per-channel affine), depths 2-2-8-2 of 80-160-320-640, downsampling by that LayerNorm + 2x2 stride-2 Conv2d, blocks of depthwise 7x7 Conv2d, permute to channels-last, fp32 LayerNorm, Linear 4x, GELU, Global Response Normalization (torch.linalg.vector_norm over h and w, divided by its mean over channels + 1e-6, gamma * (x * Nx) + beta + x, gamma and beta zero-initialised), Linear back, permute back, residual (no layer scale), mean pool, LayerNorm, Linear 1,000, truncated-normal init, CE, AdamW; thirty-second round"),
    "esm": (esm, "ESM-2-shaped protein masked LM (8M configuration), 33-token vocabulary, sequences padded to 1,024 (lengths 200-1,024 drawn once from a seeded generator, <cls> ... <eos> then <pad>), token dropout (mask embeddings zeroed, rescaled by 0.88 / (1 - observed mask share), padding zeroed), 6 pre-LN layers of 320 (20 heads of 16, q/k/v/out Linears with bias), rotary embeddings on q and k (base 10,000, rotate-half), F.scaled_dot_product_attention with a b x 1 x 1 x 1,024 boolean key-padding mask, FFN 1,280 GELU, final LayerNorm, LM head Linear 320 + GELU + LayerNorm and logits by the tied embedding + bias over 33 tokens at all positions, 15% of each sequence's residues chosen (80% <mask>, 10% random residue, 10% kept; fixed per batch), CE with ignore_index -100 on the chosen positions only, AdamW; thirty-second round"),
    "p3b2": (p3b2, "CANDLE P3B2 character-level text generator, windows of 20 characters one-hot over a 100-character alphabet (b x 20 x 100 floats), 2-layer nn.LSTM of 256 (batch first, no dropout; Glorot-uniform input and orthogonal recurrent weights, forget-gate bias 1), the top layer's last step only, Linear 256-100 to the next character, CE, Adam (the reference's RMSprop is not among record.py's optimizers); thirty-third round"),
    "p2b1": (p2b1, "CANDLE P2B1 molecular-frame autoencoder, b x 2,640 (12 beads x 20 features x a molecule and its 10 neighbours), encoder Linear 512, 256, 128 each + ELU + BatchNorm1d (eps 1e-3, momentum 0.01) + dropout 0.5, latent Linear 64 + tanh + BatchNorm1d, decoder 128, 256, 512 the same, Linear back to 2,640 (linear), Glorot-uniform weights, MSE against the input, SGD momentum; thirty-third round"),
    "pvtv2": (pvtv2, "PVT-v2-b1-shaped classifier 224x224, overlapping patch embeddings (Conv2d 7x7 stride 4, then 3x3 stride 2, padding k // 2, LayerNorm), 4 stages of 64-128-320-512 at 56-28-14-7, depths 2-2-2-2, heads 1-2-5-8 of 64, pre-LN blocks (fp32 LayerNorm eps 1e-6), spatial-reduction attention (q Linear from every token; keys and values by a Conv2d of kernel = stride = 8, 4, 2 and LayerNorm, none at the last stage, so 49 keys everywhere; one kv Linear; scaled_dot_product_attention; output Linear), Mix-FFN (Linear to 8-8-4-4 x width, depthwise 3x3 Conv2d on the token grid, GELU, Linear), per-stage LayerNorm, mean pool, Linear 1,000, timm init, CE, AdamW; thirty-third round"),
    "gptj": (gptj, "GPT-J-shaped decoder d1,024 x 8, 16 heads of 64, seq 1,024, 50,400 vocab, no position embeddings, parallel residual under one LayerNorm (x + attn(ln(x)) + mlp(ln(x))), q/k/v/out Linears without bias, interleaved rotary embeddings (rotate_every_two by strided slices, stack and flatten; base 10,000) on 32 of each head's 64 dims, the rest concatenated back, causal SDPA (is_causal), MLP 4,096 GELU (tanh approximation) with biases, final LayerNorm, untied LM head with bias, CE, AdamW; thirty-third round"),
    "bert4rec": (bert4rec, "BERT4Rec sequential recommender, histories of 20-200 items left-padded to 200 (lengths drawn once from a seeded generator), 40,002 x 256 item table (pad 0, 40,000 items, [mask]) + learned positions, LayerNorm, dropout 0.1, 2 post-LN nn.TransformerEncoderLayers (batch first, 4 heads, FFN 1,024 GELU, dropout 0.1) with a boolean src_key_padding_mask, output transform Linear 256 + GELU + LayerNorm, logits at all 200 positions by the tied item table + bias over 40,002 rows, round(15%) of each history's items replaced by [mask] (fixed per batch), CE with ignore_index -100 on the masked positions only, Adam; thirty-third round"),
    "p3b3": (p3b3, "CANDLE P3B3 multi-task CNN over pathology reports, 1,500 word ids from a 20,000 vocab, 20,000 x 300 embedding (uniform +-0.05), three parallel Conv1d 300-100 of kernels 3, 4, 5 (padding 'same', so 1 left + 2 right for 4) + ReLU, each max-pooled over the 1,500 positions (amax), concatenated 300, dropout 0.5, 4 task heads Linear to 25, 117, 4 and 9 classes concatenated to b x 155 and split in the loss, one CE per task summed, Glorot-uniform weights, Adam; thirty-fourth round"),
    "p3b4": (p3b4, "CANDLE P3B4 hierarchical attention network, documents of 30 sentences x 50 word ids from a 20,000 vocab, embedding 200, b x 30 x 50 viewed as (30 b) x 50 through a bidirectional nn.GRU 100 per direction (batch first), additive attention (Linear 200-200, tanh, context vector as Linear 200-1 without bias, fp32 softmax over the 50 words, weighted sum), sentence vectors b x 30 x 200 through a second bidirectional nn.GRU 100 and the same attention over the 30 sentences, Linear to 10 classes, CE, Adam; thirty-fourth round"),
    "dimenet": (dimenet, "DimeNet-shaped molecular regressor, molecules of 24 atoms (jittered 2 x 3 x 4 lattice positions), fixed symmetric 12-regular graph per molecule drawn once from a seeded generator (288 directed edges, offset by 24 per molecule), 3,168 triplets k -> j -> i (k != i, 11 per edge) by fixed idx_kj and idx_ji lists, distances and atan2 angles computed from the positions each step, 6 Bessel radial functions with envelope (cutoff 5, learned frequencies), spherical basis 7 x 6 = 42 (normalised spherical Bessel j_l(z_ln d / c) by upward recurrence with the zeros found at init, gathered to the triplets, times Y_l^0 by Legendre recurrence), embedding block (95 x 128 atom types, Linear 384-128 on [x_i, x_j, rbf], swish), 4 interaction blocks of 128 (Linear 6-128 rbf gate on m_kj, Linear 42-8 of the sbf, m_kj gathered by index_select on idx_kj, einsum 'wj,wl,ijl->wi' with a 128 x 8 x 128 weight, index_add_ back to the edges, residual layers 1 before and 2 after the skip), 5 output blocks (rbf-gated edges index_add_-ed to atoms, 3 Linear 128 + swish, Linear to 1), atoms summed per molecule by index_add_, MSE on one target per molecule, Adam; thirty-fourth round"),
    "tabtransformer": (tabtransformer, "TabTransformer, 8 categorical columns of cardinalities 10, 50, 100, 1,000, 5,000, 20, 7, 300 in 8 nn.Embedding tables of 32 plus a shared learned 8 x 32 column embedding, 6 post-LN nn.TransformerEncoderLayers of 32 (batch first, 8 heads of 4, FFN 128 GELU, dropout 0.1) over the 8 column tokens, flattened to 256 and concatenated with 16 continuous features through LayerNorm (272), MLP 272-1,088-544-1 with ReLU, BCE with logits, AdamW; thirty-fourth round"),
    "unetpp": (unetpp, "UNet++ (nested U-Net) 2-D segmenter at 256 x 256, 3 channels in, 1 class, 15 nodes X^{i,j} of two 3x3 Conv2d + BatchNorm2d + ReLU at widths 32-64-128-256-512 (256 down to 16 pixels by 2x2 max pool), nested dense skips X^{i,j} = node(cat(X^{i,0..j-1}, up(X^{i+1,j-1}))) with bilinear x2 nn.Upsample (align_corners True), concatenations of up to 5 maps (192 channels into X^{0,4}), deep supervision off, 1x1 Conv2d on X^{0,4}, BCE with logits against a random binary mask, Adam; thirty-fourth round"),
    "charcnn": (charcnn, "Character-level CNN text classifier (Zhang, Zhao & LeCun 2015, large configuration) on AG News, b x 70 x 1,014 one-hot characters (70-letter alphabet, blanks all-zero), six Conv1d of 1,024 features (no padding, kernels 7, 7, 3, 3, 3, 3) + ReLU with MaxPool1d 3 after layers 1, 2 and 6 (1,014 -> 1,008 -> 336 -> 330 -> 110 -> 108 -> 106 -> 104 -> 102 -> 34), flatten 34,816, Linear 2,048 + ReLU + dropout 0.5, Linear 2,048 + ReLU + dropout 0.5, Linear to 4 classes, N(0, 0.02) weights, 96M parameters (71M in the first Linear), CE, SGD momentum; thirty-fifth round"),
    "xception": (xception, "Xception (Chollet 2017) written out at 299x299, entry flow Conv2d 3x3 stride 2 to 32 and 3x3 to 64 (no padding, no bias, BN, ReLU; 149 then 147), three blocks of two SeparableConvs (depthwise 3x3 Conv2d groups = channels + pointwise 1x1 Conv2d, no biases, BatchNorm2d after) to 128, 256, 728 with ReLUs between (and before, except the first), MaxPool2d 3 stride 2 and a 1x1 stride-2 Conv2d + BN shortcut (74, 37, 19), middle flow of 8 blocks of three ReLU-SeparableConv 728-BN with identity residual at 19x19, exit flow 728 -> 728 -> 1,024 block with pool and shortcut (10x10), SeparableConv 1,536 and 2,048 each + BN + ReLU, global average pool, Linear 1,000, 22.9M parameters, CE, SGD momentum; thirty-fifth round"),
    "patchtst": (patchtst, "PatchTST/64 supervised forecaster (Nie et al. 2023, Electricity configuration), b x 512 steps x 321 channels, channel-independent, RevIN without affine (per series mean and sqrt(biased var + 1e-5) over time), ReplicationPad1d of 8 at the end and unfold into 64 patches of 16 stride 8, (b*321) x 64 x 16 by Linear 16-128 + learned positions (uniform +-0.02), dropout 0.2, 3 post-norm encoder layers of 128 (W_Q, W_K, W_V with bias, 16 heads of 8, attention written out: q k^T x 8^-0.5 plus the previous layer's scores (residual attention), softmax, matmul, output Linear + dropout 0.2; dropout, residual, BatchNorm1d over d_model by transpose-BN-transpose; FFN 256 GELU, dropout 0.2, residual, BatchNorm1d), flatten head (d_model-major 8,192 -> Linear 96), de-normalised, b x 96 x 321, MSE, Adam; thirty-fifth round"),
    "gmlp": (gmlp, "gMLP masked LM (Liu et al. 2021), gMLP-base widths at 12 layers instead of 48, seq 512, 30,522 vocab, learned token embeddings of 512 only (no position embeddings, no attention), blocks of fp32 LayerNorm, Linear 512-3,072, GELU, spatial gating unit (channels chunked into halves u and v of 1,536, v through fp32 LayerNorm, transposed to b x 1,536 x 512 and mixed over the tokens by a Linear 512-512 whose weight starts uniform in +-1e-3 / 512 and bias at one, transposed back, u * v), Linear 1,536-512, residual, no dropout, final fp32 LayerNorm, 77 masked positions (15%, fixed per batch, [MASK] 103) gathered, logits by the tied 30,522 x 512 embedding + bias, normal std 0.02 init elsewhere, CE on the masked positions, AdamW; thirty-fifth round"),
    "srgnn": (srgnn, "SR-GNN session recommender (Wu et al. 2019), session prefixes of 1-20 clicks over 40,000 items (lengths and clicks drawn once from a seeded generator, 30% of clicks repeating an earlier one, right-padded with 0), per session the sorted unique items as up to 20 nodes (padded), alias indices and dense b x 20 x 20 in- and out-degree-normalised adjacency matrices built on the host in make(), 40,001 x 100 item table, one gated graph step (Linear 100-100 then batched matmul with A_in, the same with A_out, plus biases, concatenated 200, GRU update written out: Linear 200-300 and Linear 100-300 chunked into reset, update and new gates, sigmoid, tanh, h' = n + z (h - n)), click states gathered from the nodes by alias, last click at mask.sum - 1, soft attention (Linear q1 of the last + Linear q2 of each click, sigmoid, Linear 100-1 without bias, masked weighted sum), hybrid Linear 200-100 of [global, last], scores by matmul with the 40,000 item rows of the table (b x 40,000), uniform +-0.1 init, CE against the next item, Adam; thirty-fifth round"),
    "squeezenet": (squeezenet, "SqueezeNet 1.1 (Iandola et al.) written out at 224x224, Conv2d 3x3 stride 2 to 64 (no padding) + ReLU (111x111), MaxPool2d 3 stride 2 ceil_mode (55), fire modules (squeeze 1x1 Conv2d + ReLU, then expand 1x1 and expand 3x3 (padding 1) Conv2d each + ReLU, concatenated) of squeeze/expand 16/64, 16/64 at 55, pool (27), 32/128, 32/128, pool (13), 48/192, 48/192, 64/256, 64/256 at 13x13 (512 channels), dropout 0.5, Conv2d 1x1 512-1,000 + ReLU, global average pool, torchvision init (kaiming-uniform, final conv N(0, 0.01)), 1.24M parameters, CE, SGD momentum; thirty-sixth round"),
    "siren": (siren, "SIREN (Sitzmann et al. 2020) fitting a 512x512 RGB image, batch in pixel coordinates (x, y on the [-1, 1] grid, drawn uniformly with replacement in make()), five sine layers of 256 (Linear 2-256 then four Linear 256-256, each followed by sin(30 x)), Linear 256-3, the paper's init (first layer uniform +-1/2, later layers uniform +-sqrt(6/256)/30), 264K parameters, MSE against a random RGB image in [-1, 1], Adam; thirty-sixth round"),
    "dcnv2": (dcnv2, "DCN-V2 (Wang et al. 2021) CTR model, stacked structure, 26 categorical fields in 26 nn.Embedding tables of 16 with vocabularies log-spaced from 100 to 2,000,000 rows (6.1M rows, 97.8M of the model's 100.4M parameters, dense gradients), 13 dense features, x0 of 26*16 + 13 = 429, 3 full-rank cross layers x_{l+1} = x0 * (W x_l + b) + x_l with W 429 x 429 (nn.Linear), then the deep MLP Linear 429-1,024, 1,024-1,024, 1,024-512 each + BatchNorm1d + ReLU + dropout 0.1, Linear 512-1, BCE with logits, Adam; thirty-sixth round"),
    "bart": (bart, "BART-base-shaped denoising seq2seq LM (Lewis et al. 2020) at 3 encoder + 3 decoder layers instead of 6 + 6, d_model 768, 12 heads of 64, post-LN layers (self-attention, in the decoder causal self-attention then cross-attention to the 512 encoder states, FFN Linear 768-3,072 GELU Linear 3,072-768, each residual followed by an fp32 LayerNorm), attention written out (q k v o Linear with bias, q scaled by 64^-0.5, q k^T cast to fp32, boolean padding or causal mask filled with the fp32 minimum, fp32 softmax, dropout, matmul with v), shared 50,265 x 768 token embedding (padding id 1), separate learned encoder and decoder positions (1,024 + 2 offset = 1,026 x 768) and a LayerNorm on each embedding sum, dropout 0.1 throughout, source of 512 corrupted by text infilling in make() (76 of the 510 body tokens in Poisson(3) spans, one <mask> per span, right-padded with <pad> and masked as keys in encoder self- and cross-attention), decoder input the 512 targets shifted right behind </s>, LM head tied to the embedding plus a zero final_logits_bias buffer over 50,265, N(0, 0.02) weights and zero biases, 89.8M parameters, CE over all 512 target positions, AdamW; thirty-sixth round"),
    "indrnn": (indrnn, "Residual IndRNN (Li et al. 2018) on sequential MNIST, b x 784 x 1 pixel sequences, 6 IndRNN layers of 128 (per layer the input projections of all 784 steps by one Linear, 1-128 then 128-128, and the recurrence h_t = relu(z_t + u * h_{t-1}) as a Python loop of elementwise multiply, add and ReLU over the 784 steps from h_0 = 0, u a per-unit recurrent vector uniform in (0, 1) clipped at init only to the max-step bound 2^(1/784)), BatchNorm1d over the 128 units on the b*784 rows after layers 1 to 5, residual connections every 2 layers (layer 4 plus layer 2's normalised output, layer 6 plus layer 4's), the last step's state of layer 6 to Linear 128-10, 86K parameters, CE, Adam; thirty-sixth round"),
    "kan": (kan, "Kolmogorov-Arnold Network (Liu et al. 2024) in the efficient-kan formulation on flattened 28x28 images (values uniform in [-1, 1]), KANLinear layers 784-256-256-10, each a base branch Linear(SiLU(x)) (no bias) plus a spline branch: cubic B-spline bases on a uniform grid of 5 intervals over [-1, 1] extended by 3 knots each side (12 knots), computed by the Cox-de Boor recursion as elementwise ops (interval comparisons, then 3 levels of subtract, divide by knot differences, multiply and add on shifted slices of b x in x 11 down to b x in x 8), flattened to b x in*8 and multiplied by the spline weights (in*8 to out, times a learnable per-(out, in) spline scaler) in one matmul, no grid updates, efficient-kan init (kaiming-uniform base weights and scalers, spline coefficients least-squares fitted to small noise at build), 2.69M parameters, CE, Adam; thirty-seventh round"),
    "word2vec": (word2vec, "word2vec skip-gram with negative sampling (Mikolov et al. 2013), vocabulary 100,000, dimension 300, input and output nn.Embedding tables with dense gradients (not sparse; word2vec.c init: input uniform +-0.5/300, output zeros), 60M parameters, per centre word 1 positive and 15 negative context words (centre and positive words from a Zipf unigram distribution, negatives from unigram^0.75, both distributions computed once in the builder and the words drawn fresh in each make() call by torch.multinomial with replacement), scores by bmm of the b x 16 x 300 context vectors with the b x 300 x 1 centre vectors, loss -logsigmoid(pos) - sum logsigmoid(-neg) (F.logsigmoid) averaged over the batch, plain SGD as the original; thirty-seventh round"),
    "vgg16": (vgg16, "VGG-16 with BatchNorm (Simonyan & Zisserman 2014; torchvision vgg16_bn layout) written out at 224x224, thirteen Conv2d 3x3 padding 1 of 64, 64, M, 128, 128, M, 256 x 3, M, 512 x 3, M, 512 x 3, M, each followed by BatchNorm2d + ReLU, MaxPool2d 2 stride 2 (224 -> 112 -> 56 -> 28 -> 14 -> 7), AdaptiveAvgPool2d(7), flatten 25,088, classifier Linear 25,088-4,096, ReLU, dropout 0.5, Linear 4,096-4,096, ReLU, dropout 0.5, Linear 4,096-1,000, torchvision init (kaiming-normal fan_out convolutions, BN 1/0, Linears N(0, 0.01), zero biases), 138.4M parameters (123.6M in the classifier), CE, SGD momentum; thirty-seventh round"),
    "dqn": (dqn, "Nature DQN (Mnih et al. 2015) Q-learning step on Atari frame stacks, replay minibatch (s, a, r, s', done) from make(): b x 4 x 84 x 84 states in [0, 1), 18 actions, clipped rewards in {-1, 0, 1}, next states sharing 3 frames with the states, 10% terminal; online and target Q-networks (Conv2d 4-32 8x8 stride 4, ReLU, 32-64 4x4 stride 2, ReLU, 64-64 3x3 stride 1, ReLU, flatten 3,136, Linear 3,136-512, ReLU, Linear 512-18, PyTorch default init), the target a copy of the online weights with requires_grad False, run under torch.no_grad() on s'; in the module Q(s) gathered at the taken actions and the targets r + 0.99 (1 - done) max_a' Q_target(s', a'), returned stacked b x 2, Huber loss (smooth_l1, beta 1) between them, 1.69M trained of 3.39M parameters, Adam; thirty-seventh round"),
    "linformer": (linformer, "Linformer encoder (Wang et al. 2020) for masked-LM-style token classification, seq 4,096, 32,000 vocab, token embedding + learned 4,096 x 512 positions (N(0, 0.02)), 6 pre-LN layers of 512, attention written out with 8 heads of 64: q, k, v Linears 512-512, keys and values projected along the sequence axis to k = 256 by learned E and F of 4,096 x 256 per layer (shared across heads, uniform +-1/16) as einsum 'bnd,nk->bkd', scores q k'^T / 8 over 4,096 x 256, softmax, matmul with v', output Linear; FFN 512-2,048 GELU 2,048-512, no dropout, final LayerNorm, untied output Linear 512-32,000 at all 4,096 positions, 66.4M parameters, CE over all tokens against random targets, AdamW; thirty-seventh round"),
    "mind": (mind, "MIND multi-interest candidate generator (Li et al. 2019; DeepMatch / torch-rechub design), 1,000,000 x 64 item nn.Embedding (dense gradients, N(0, 1e-4)) shared by 50-behaviour histories (lengths 1-50 per user, pad id 0, float mask), the target and the negatives, 3 profile fields of 100,000, 1,000 and 100 values in nn.Embedding tables of 64 concatenated to 192, B2I dynamic routing: behaviours mapped by one shared 64 x 64 bilinear matrix S, b x 4 x 50 routing logits drawn from N(0, 1) in each forward, 3 iterations of softmax over the 4 interests, padding zeroed, bmm to b x 4 x 64 capsules, squash, logits += bmm of capsules and the detached mapped behaviours, profile concatenated to each capsule (256) and a ReLU DNN 256-256-64, label-aware attention (interest-target dot products to the power 2, softmax over the interests, weighted sum), sampled softmax logits against the target (column 0) and 255 uniform negatives shared by the batch (F.linear), 70.6M parameters, CE against column 0, Adam; thirty-eighth round"),
    "ecapa": (ecapa, "ECAPA-TDNN speaker verification (Desplanques et al. 2020; SpeechBrain ECAPA_TDNN layout, C = 512) on 2 s crops of 80-dim log-mel features, b x 80 x 200, TDNNBlock Conv1d 80-512 kernel 5 + ReLU + BatchNorm1d, three SE-Res2Blocks of 512 at dilations 2, 3, 4 (1x1 TDNNBlock, Res2Net scale 8: 512 chunked into 8 groups of 64, 7 dilated kernel-3 Conv1d 64-64 + ReLU + BN run in sequence on group + previous output, concat, 1x1 TDNNBlock, SE: time mean, 1x1 Conv1d 512-128 ReLU 128-512 sigmoid, scale; identity residual), all k > 1 convolutions reflect-padded, multi-layer feature aggregation (concat 1,536, 1x1 TDNNBlock 1,536-1,536), attentive statistics pooling with global context (length mask of full crops, utterance mean and std repeated over time and concatenated to 4,608, 1x1 TDNNBlock 4,608-128, tanh, 1x1 Conv1d 128-1,536, masked_fill, softmax over time, weighted mean and std, 3,072), BatchNorm1d, Linear 3,072-192 embedding, cosine scores against 5,994 L2-normalised speaker weights (xavier-uniform), 7.35M parameters, AAM-softmax loss (m 0.2, s 30: clamp, sine, cos(theta + m) with the threshold fallback, one-hot blend, log_softmax, KL-div sum / batch), Adam; thirty-eighth round"),
    "fno3d": (fno3d, "3-D Fourier neural operator (Li et al. 2021, the reference FNO3d for 2-D Navier-Stokes in space-time) on b x 64 x 64 x 40 x 13 inputs (10 past vorticity steps repeated over the 40 output times + x, y, t coordinates), Linear 13-20, channels-first, F.pad of time by 6 to 46, four layers of SpectralConv3d (fp32 rfftn over the 64 x 64 x 46 volume, the 8 x 8 x 8 modes of the four (x, y) corner blocks multiplied by complex64 weight parameters through einsum 'bixyz,ioxyz->boxyz', written into a zero spectrum, irfftn) plus a 1x1x1 Conv3d 20-20, GELU after the first three, crop, channels-last, Linear 20-128, GELU, Linear 128-1, 3.28M complex + 4,777 real parameters (6.56M real numbers), relative L2 loss against a random target, Adam; thirty-eighth round"),
    "byol": (byol, "BYOL (Grill et al. 2020) self-supervised step at 96x96, two views from make() each b x 3 x 96 x 96; online ResNet-18 (7x7 stride-2 stem, max-pool, 4 stages of 2 basic blocks 64-128-256-512, BatchNorm2d), projector 512-4,096-256 and predictor 256-4,096-256 (Linear, BatchNorm1d, ReLU, Linear); target = deepcopy of backbone + projector, requires_grad False, updated in the forward before the online pass by EMA tau 0.996 (torch._foreach_mul_ / _foreach_add_), run under no_grad in train mode; each view through each network separately (4 ResNet-18 passes, 2 with grad); returns 4 x b x 256; symmetric loss 2 - 2 cos(normalised prediction, detached other-view projection), mean over batch; 16.45M trained of 30.78M parameters, SGD momentum (the paper used LARS); thirty-eighth round"),
    "clip": (clip, "CLIP ViT-B/32 (Radford et al. 2021) contrastive image-text pre-training following openai/CLIP, full depth: image tower Conv2d 3-768 32x32 stride 32 without bias (49 patches) + class token + learned positions (50 tokens), ln_pre, 12 pre-LN blocks of 768 (sequence-first nn.MultiheadAttention, 12 heads of 64, need_weights=False; MLP 3,072 with quick_gelu x * sigmoid(1.702 x); fp32 LayerNorms), ln_post on the class token, x @ proj 768-512; text tower 49,408 x 512 token embedding + learned 77 positions, 12 blocks of 512 (8 heads, MLP 2,048, quick_gelu) under a 77 x 77 float causal mask, ln_final, the EOT token's feature by argmax of the ids and advanced indexing, x @ text_projection 512-512; both L2-normalised, logits exp(logit_scale) img @ txt^T (logit_scale learned from log(1/0.07)), b x b; captions of SOT + 5-75 ids + EOT zero-padded to 77 (lengths drawn once from a seeded generator), reference init, 151.3M parameters, symmetric CE over rows and columns against arange(b), AdamW; thirty-eighth round"),
    "stn": (stn, "Spatial Transformer Network classifier (Jaderberg et al. 2015) on b x 3 x 128 x 128 images of 200 classes (CUB-200-2011-sized), localisation CNN (Conv2d 3-32 5x5, 32-64 5x5, 64-128 3x3, 128-128 3x3, each + MaxPool2d 2 + ReLU, 128 -> 8, flatten 8,192, Linear 8,192-128, ReLU, Linear 128-6 with zero weights and the identity [1, 0, 0, 0, 1, 0] as bias), theta cast to fp32, F.affine_grid (align_corners False) to a b x 128 x 128 x 2 grid, F.grid_sample bilinear, zero padding, align_corners False (grid_sampler_2d forward, backward for the grid only), classifier Conv2d 3x3 3-64, 64-64 at 128, MaxPool2d 2, 64-128, 128-128 at 64, MaxPool2d 2, 128-256, 256-256 at 32 (each without bias + BatchNorm2d + ReLU), global average pool, Linear 256-200, PyTorch default init, 2.52M parameters (1.32M in the localisation net), CE, SGD momentum; thirty-ninth round"),
    "nystromformer": (nystromformer, "Nystromformer encoder (Xiong et al. 2021; the authors' LRA NystromAttention) for sequence classification, seq 4,096, token embedding 30,000 x 512 + learned 4,096 x 512 positions (N(0, 0.02)), dropout 0.1, 4 pre-LN layers of 512 (fp32 LayerNorms), attention written out with 8 heads of 64: W_q, W_k, W_v Linears 512-512, q and k scaled by 64^-1/4, 64 landmarks per head by segment means (64 segments of 64 positions), kernels softmax(q k~^T) b x 8 x 4,096 x 64, softmax(q~ k~^T) 64 x 64 and softmax(q~ k^T) 64 x 4,096, the 64 x 64 kernel's pseudo-inverse by 6 Newton-Schulz iterations written out (Z0 = A^T / (max column sum x max row sum over the batch), Z <- Z/4 (13I - AZ (15I - AZ (7I - AZ))), 4 batched 64 x 64 matmuls each), (k1 pinv) (k3 v), plus a depthwise Conv2d(8, 8, (33, 1), groups 8, no bias) along the sequence on v, output Linear 512-512, dropout 0.1; FFN 512-2,048 GELU 2,048-512 with dropout 0.1, no padding mask (full-length sequences), final fp32 LayerNorm, mean over the 4,096 positions, Linear 512-10, 30.1M parameters (17.5M in the embeddings), CE, AdamW; thirty-ninth round"),
    "snn": (snn, "Spiking CNN trained with surrogate gradients (Fang et al. 2021 / SpikingJelly CIFAR-10 layout, fixed-tau LIF in place of PLIF) on b x 3 x 32 x 32 images, 16 time steps in a Python loop, one step at a time through all layers; the static image's current Conv2d 3-128 3x3 + BatchNorm2d computed once; per step LIF, Conv 128-128 + LIF at 32, AvgPool2d 2, Conv 128-256 + LIF, 256-256 + LIF at 16, AvgPool2d 2, 256-256 + LIF, 256-256 + LIF at 8, AvgPool2d 2, flatten 4,096, Linear 4,096-10 without bias + LIF (all convs 3x3 without bias, each BatchNorm2d called at every step); LIF written out as elementwise ops (v = v + (x - v) / 2, spike = heaviside(v - 1) by a custom autograd.Function with the sigmoid surrogate alpha 4 in its backward, hard reset v = v (1 - spike), not detached, v from 0 in every forward); output the output neurons' spike counts / 16, b x 10 firing rates, 2.26M parameters, MSE against one-hot labels, Adam; thirty-ninth round"),
    "maml": (maml, "Second-order MAML (Finn et al. 2017) on 5-way 1-shot Omniglot-sized tasks, batch = meta-batch of tasks, per task 5 support images 1 x 28 x 28 labelled 0-4 and 75 query images (15 per class); the 4-block conv net written functionally (F.conv2d 3x3 64 'same', F.batch_norm(x, None, None, w, b, training=True) without running statistics, ReLU, max_pool2d 2: 28 -> 14 -> 7 -> 3 -> 1, F.linear 64-5; xavier-uniform weights, zero biases), per task in a Python loop inside forward: fast weights = the meta-parameters, 5 inner SGD steps (lr 0.4) of CE on the support set with torch.autograd.grad(create_graph=True), then the query logits under the adapted weights; forward returns tasks x 75 x 5, the backward runs the double backward (gradient of gradients) through all inner steps, 112K parameters, CE over all query logits, Adam (outer lr 1e-3 in the reference); thirty-ninth round"),
    "fastspeech2": (fastspeech2, "FastSpeech 2 text-to-mel (Ren et al. 2021; ming024's implementation, LJSpeech configuration, no PostNet), 120-140 phonemes per utterance padded to the batch's longest, phoneme embedding 360 x 256 + sinusoid positions, encoder of 4 FFT blocks (post-LN: multi-head self-attention 2 heads of 128 written out with w_qs, w_ks, w_vs, fc Linears 256-256, -inf key padding mask, softmax, dropout 0.2, residual, fp32 LayerNorm, padding zeroed; Conv1d 256-1,024 kernel 9, ReLU, Conv1d 1,024-256 kernel 1, dropout 0.2, residual, fp32 LayerNorm, padding zeroed), variance adaptor of duration, pitch and energy predictors (2 x (Conv1d 256-256 kernel 3, ReLU, fp32 LayerNorm, dropout 0.5), Linear 256-1, padding zeroed), phoneme-level pitch and energy targets quantised by torch.bucketize over 255 boundaries into 256 bins and embedded (nn.Embedding 256 x 256, pitch added before the energy predictor), length regulator per utterance by torch.repeat_interleave of the phoneme states by ground-truth durations of 1-11 frames (drawn once from a seeded generator, output_size the known mel length) and F.pad to the batch's longest mel (~900 frames at batch 48), sinusoid positions, decoder of 6 FFT blocks at the frame level, Linear 256-80, returns the mels and the log-duration, pitch and energy predictions flattened and concatenated, 30.3M parameters, loss L1 on the mels over the real frames + MSE on log(d + 1), pitch and energy over the real phonemes (padding weighted 0), Adam; thirty-ninth round"),
}